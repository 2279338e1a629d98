#!/usr/bin/env bash
# `dualpath capacity` (docs/capacity.md) on DS 27B 1P1D online with a tight TTFT SLO (0.3 s) so that probes are
# short: the search brackets each policy's capacity to the resolution, every probe at or below it meets the SLO
# and the lowest failing one is within the resolution above it; DualPath's capacity is at least Basic's; a rerun
# reuses every probe; a slower SNIC lowers Basic's capacity and a second prefill node raises it; bad input gets exit 2 and one clear line.
# Usage: capacity.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
# Short probes: the TTFT-only stop rule (slo-ttft), since a 300-s probe cannot reach the default rule's steady state
# (that rule and its transients are tests/cli/capacity_transient.sh's).
base=(--set workload.mode=online --set workload.aps=0.5 --set workload.duration=300s --set workload.stop=slo-ttft --jobs 2)
online=("${base[@]}" --slo-ttft 0.3s --resolution 0.1)
"$bin" capacity "$sc" "${online[@]}" --out "$tmp/c" > "$tmp/c.out" 2> "$tmp/c.err" || { cat "$tmp/c.err"; exit 1; }
"$bin" capacity "$sc" "${online[@]}" --out "$tmp/c" > "$tmp/again.out" 2> "$tmp/again.err" || exit 1
"$bin" capacity "$sc" "${online[@]}" --policy basic --set "topology.snic_bw=200 Gbps" --no-plot --out "$tmp/slow" \
  > /dev/null 2>&1 || exit 1
"$bin" capacity "$sc" "${online[@]}" --policy basic --set deployment.prefill_nodes=2 --out "$tmp/more" \
  > /dev/null 2>&1 || exit 1
PYTHONPATH="$root/tests/cli" python3 - "$tmp" <<'PY'
import json, sys
from checks import check, done
t = sys.argv[1]
c = json.load(open(f"{t}/c/capacity.json"))
for name, p in c["policies"].items():
    cap, fail = p["capacity_aps"], p["lowest_failing_aps"]
    check(cap > 0 and fail is not None and cap < fail <= cap * 1.1 + 1e-9,
          f"{name}: capacity {cap:.4g} APS bracketed by a failure at {fail:.4g} within 10%")
    ok = all(pr["meets_slo"] == (pr["ended_by"] != "slo_violated" and pr["tpot_mean_s"] <= 0.05) for pr in p["probes"])
    check(ok, f"{name}: each probe's verdict follows from how the stop rule ended it and its TPOT")
    check(all(pr["meets_slo"] for pr in p["probes"] if pr["aps"] <= cap), f"{name}: every probe at or below capacity meets")
# Each probe's line on the terminal says why, with the measured values: a TTFT miss names the limit it passed and
# when, a meet says how the run ended (and that all_agents_done only bounds the capacity from below).
err = open(f"{t}/c.err").read()
check("the TTFT window mean passed the 0.3 s limit at t = " in err, "a TTFT miss says which limit it passed and when")
check("meets the SLO (" in err, "a meet says how its run ended")
check(all("lower bound" in l for l in err.splitlines() if "meets the SLO (all_agents_done" in l),
      "a probe every agent finished before steady state is called a lower bound")
bc, dc = c["policies"]["basic"]["capacity_aps"], c["policies"]["dualpath"]["capacity_aps"]
check(dc >= bc, f"dualpath {dc:.4g} >= basic {bc:.4g} APS")
check(abs(c["policies"]["dualpath"]["ratio_to_basic"] - dc / bc) < 1e-9, "ratio_to_basic is the capacity ratio")
again = open(f"{t}/again.err").read()
a = json.load(open(f"{t}/c/capacity.json"))
check("probing" not in again and all(a["policies"][n]["probes_reused"] == len(a["policies"][n]["probes"]) for n in a["policies"]),
      "a rerun reuses every probe and runs none")
check(a["policies"]["basic"]["capacity_aps"] == bc, "the rerun finds the same capacity")
s = json.load(open(f"{t}/slow/capacity.json"))["policies"]["basic"]["capacity_aps"]
check(s < bc, f"a 200 Gbps SNIC lowers Basic's capacity: {s:.4g} < {bc:.4g} APS")
m = json.load(open(f"{t}/more/capacity.json"))["policies"]["basic"]["capacity_aps"]
check(m > bc, f"a second prefill node raises Basic's capacity: {m:.4g} > {bc:.4g} APS")
png = open(f"{t}/c/capacity.png", "rb").read(8) if __import__("os").path.exists(f"{t}/c/capacity.png") else b""
check(png == b"\x89PNG\r\n\x1a\n", "capacity.png is drawn (TTFT and TPOT against APS)")
check(not __import__("os").path.exists(f"{t}/slow/capacity.png"), "--no-plot draws nothing")
out = open(f"{t}/c.out").read()
check("basic" in out and "dualpath" in out and "binds at capacity" in out, "the table names both policies and what binds")
done()
PY
[ $? -eq 0 ] || exit 1

fail=0
source "$root/tests/cli/bad_input.bash"
bad() { local name="$1" want="$2"; shift 2; bad_input "$name" "$want" "$bin" capacity "$@"; }
bad "TTFT SLO of 0" "--slo-ttft 0s: expected a duration > 0" "$sc" "${base[@]}" --slo-ttft 0s --out "$tmp/b1"
bad "negative TPOT SLO" "--slo-tpot -5ms" "$sc" "${base[@]}" --slo-tpot -5ms --out "$tmp/b2"
bad "offline scenario" "/workload/mode" "$sc" --out "$tmp/b3"
bad "unknown policy" "--policy" "$sc" "${online[@]}" --policy basic,nope --out "$tmp/b4"
bad "resolution out of range" "--resolution: expected a fraction in [0.0001, 1)" "$sc" "${base[@]}" --resolution 1.5 \
  --out "$tmp/b5"
# Finer than the probes' naming (issue 68: 1e-7 reused verdicts of rates it never ran; 1e-9 collided in a folder)
bad "resolution below the floor" "--resolution: expected a fraction in [0.0001, 1), e.g. 0.02, found 1e-07" "$sc" "${base[@]}" --resolution 1e-7 \
  --out "$tmp/b6"
bad "another search in the same folder" "Use another --out" "$sc" "${base[@]}" --slo-ttft 1s --out "$tmp/c"
# A --set every probe would refuse (issue 80): exit 2 before any probe, no folder made.
bad "a --set every probe refuses" "workload.max_len: expected a length limit that fits the first round" "$sc" \
  "${online[@]}" --set workload.max_len=100 --out "$tmp/b7"
[ -e "$tmp/b7" ] && { echo "FAIL a refused search made its folder"; fail=1; }
exit $fail
