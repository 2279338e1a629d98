#!/usr/bin/env bash
# The bounds of `plan --target-aps` (issue 79; core/study/plan_bounds.hpp, docs/capacity.md "How the planner
# decides") never rule out a split whose probe holds, and never change the answer. For each bound, loads just past
# its margin on a cluster it binds:
#   - storage reads: the I/O-bound trace of the closed-form tests (one 50 Gbps SNIC reads 6.912 APS of it) at 7.7
#     APS (1.11x one SNIC: every split reading through one is ruled out) and 15.2 APS (1.10x two);
#   - prefill compute: a trace of long fresh appends (0.49 prefill GPU-seconds an agent: one 8-GPU prefill node
#     computes 16.4 APS of it) at 18 APS (1.10x one node).
# Each load is planned twice into one folder: first exhaustively (--bounds off --ties: every split of every count
# the search visits probed), then with the bounds, which must probe nothing new (every split it probes, the first
# plan probed), answer the same count and bracket, name holding splits the exhaustive plan found holding, and rule
# out only splits whose exhaustive probe missed. A bound made looser than its margin, or a demand read too high,
# rules out a split that holds, and this test fails.
# Usage: plan_bounds.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"

python3 "$root/tests/cli/lib/io_bound_trace.py" "$tmp/io.jsonl"
python3 - "$tmp/heavy.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:  # a long fresh first prompt, then three 4K-token appends
    for i in range(32):
        f.write(json.dumps({"id": f"h{i}", "rounds": [[[16384, 12288, 20480, 8192][i % 4], 16]] + [[4096, 16]] * 3}) + "\n")
PY
common=(--objective capacity --vary policy.name=basic,dualpath --max-nodes 4 --set workload.source=file
        --set workload.mode=online --set workload.aps=4 --set workload.duration=2400s --set policy.block_tokens=64
        --slo-ttft 1s --jobs 2 --no-plot)
plan_twice() {  # name, target, extra --set...
  local name=$1 x=$2; shift 2
  "$bin" plan "$sc" --target-aps "$x" "${common[@]}" "$@" --bounds off --ties --out "$tmp/$name" \
    > "$tmp/$name.all.out" 2> "$tmp/$name.all.err" || { echo "FAIL exhaustive $name:"; tail -5 "$tmp/$name.all.err"; exit 1; }
  cp "$tmp/$name/plan.json" "$tmp/$name.all.json"
  "$bin" plan "$sc" --target-aps "$x" "${common[@]}" "$@" --out "$tmp/$name" \
    > "$tmp/$name.out" 2> "$tmp/$name.err" || { echo "FAIL bounded $name:"; tail -5 "$tmp/$name.err"; exit 1; }
}
plan_twice reads7.7 7.7 --set "workload.file=$tmp/io.jsonl" --set 'topology.snic_bw="50 Gbps"'
plan_twice reads15.2 15.2 --set "workload.file=$tmp/io.jsonl" --set 'topology.snic_bw="50 Gbps"'
plan_twice compute18 18 --set "workload.file=$tmp/heavy.jsonl"

PYTHONPATH="$root/tests/cli" python3 - "$tmp" <<'PY'
import json, sys
from checks import check, done
t = sys.argv[1]
ruled = {"storage reads": 0, "prefill compute": 0}
for name in ("reads7.7", "reads15.2", "compute18"):
    every = {v["policy"]: v for v in json.load(open(f"{t}/{name}.all.json"))["variants"]}
    bounded = {v["policy"]: v for v in json.load(open(f"{t}/{name}/plan.json"))["variants"]}
    err = open(f"{t}/{name}.err").read()
    check(" 0 probes run," in err and " APS meets" not in err and " APS misses" not in err and " APS transient" not in err,
          f"{name}: the bounded plan probes nothing the exhaustive one did not")
    for policy, a in every.items():
        b = bounded[policy]
        check((b["nodes"], b["largest_failing_nodes"]) == (a["nodes"], a["largest_failing_nodes"]),
              f"{name} {policy}: the same answer and bracket with the bounds ({b['nodes']}, {b['largest_failing_nodes']}) "
              f"as without ({a['nodes']}, {a['largest_failing_nodes']})")
        holds_all = {h["split"] for h in a.get("holding_splits", [])}
        holds = {h["split"] for h in b.get("holding_splits", [])}
        check(holds and holds <= holds_all, f"{name} {policy}: holding splits {sorted(holds)} among {sorted(holds_all)}")
        probed = {(d["nodes"], s["split"]): s for d in a["decided"] for s in d["splits"] if "probe" in s}
        for d in b["decided"]:
            for s in d["splits"]:
                if s.get("bound") not in ruled:
                    continue
                ruled[s["bound"]] += 1
                p = probed.get((d["nodes"], s["split"]))
                if p is not None:  # a count the exhaustive search visited: its probe must have missed
                    check(not p["meets_slo"], f"{name} {policy}: {s['split']} of {d['nodes']} nodes, ruled out by the "
                                              f"{s['bound']} bound, misses when probed ({s['ruled_out']})")
    # Every split the bounds ruled out at a count the exhaustive plan probed was checked above; the bracket's
    # failing count must have been probed whole by the exhaustive plan.
    for policy, a in every.items():
        below = a["largest_failing_nodes"]
        if below:
            d = next(d for d in a["decided"] if d["nodes"] == below)
            check(len(d["splits"]) == below - 1 and all("probe" in s for s in d["splits"]),
                  f"{name} {policy}: the exhaustive plan probed every split of {below} nodes")
check(ruled["storage reads"] >= 4 and ruled["prefill compute"] >= 2,
      f"the loads sit past both bounds' margins (splits ruled out: {ruled})")
done()
PY
