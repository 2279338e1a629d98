#!/usr/bin/env bash
# `dualpath sweep` on the default scenario (16 agents, to be quick): the cross product of two --vary lists runs one
# point each, sweep.csv holds one row per point whose JCT equals a direct `dualpath run` of that point, a rerun
# into the same folder reuses every point, and bad input gets exit 2.
# Usage: sweep.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/default.json"
args=(--set workload.agents=16 --vary policy.name=basic,dualpath --vary "topology.snic_bw=200 Gbps,400 Gbps" --no-plot
      --jobs 2 --out "$tmp/s")
"$bin" sweep "$sc" "${args[@]}" > "$tmp/s.out" 2>&1 || { cat "$tmp/s.out"; exit 1; }
"$bin" sweep "$sc" "${args[@]}" > "$tmp/again.out" 2>&1 || { cat "$tmp/again.out"; exit 1; }
"$bin" run "$sc" --set workload.agents=16 --set policy.name=basic --set "topology.snic_bw=200 Gbps" --quiet \
  --out "$tmp/direct" || exit 1
PYTHONPATH="$root/tests/cli" python3 - "$tmp" <<'PY'
import csv, json, sys, os
from checks import check, done
t = sys.argv[1]
rows = list(csv.DictReader(open(f"{t}/s/sweep.csv")))
pts = {(r["policy.name"], r["topology.snic_bw"]): r for r in rows}
check(sorted(pts) == [(p, b) for p in ("basic", "dualpath") for b in ("200 Gbps", "400 Gbps")] and
      all(r["status"] == "ok" for r in rows), "four points, all ok")
d = json.load(open(f"{t}/direct/summary.json"))["results"]["jct_s"]
j = float(pts[("basic", "200 Gbps")]["jct_s"])
check(abs(j - d) <= 1e-6 * d, f"basic at 200 Gbps: sweep JCT {j:.4f} = direct run {d:.4f}")
for p in ("basic", "dualpath"):
    check(float(pts[(p, "400 Gbps")]["jct_s"]) < float(pts[(p, "200 Gbps")]["jct_s"]), f"{p}: a faster SNIC shortens JCT")
check(os.path.isdir(f"{t}/s/points/policy.name=basic__topology.snic_bw=200_Gbps"), "point folders are named key=value__...")
check("4 already done, running 0" in open(f"{t}/again.out").read(), "a rerun reuses every point and runs none")
done()
PY
[ $? -eq 0 ] || exit 1
fail=0
source "$root/tests/cli/bad_input.bash"
bad_input "no --vary" "give at least one --vary" "$bin" sweep "$sc" --out "$tmp/b1"
bad_input "--vary without '='" "--vary policy.name: expected KEY=V1,V2" "$bin" sweep "$sc" --vary policy.name --out "$tmp/b2"
bad_input "a key varied twice" "varied twice" "$bin" sweep "$sc" --vary policy.name=basic --vary policy.name=dualpath \
  --out "$tmp/b3"
bad_input "an invalid value" "--vary topology.snic_bw=fast: /topology/snic_bw" "$bin" sweep "$sc" --vary "topology.snic_bw=fast" --out "$tmp/b4"
exit $fail
