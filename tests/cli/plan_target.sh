#!/usr/bin/env bash
# `plan --target-aps` (issue 65, the inverse question; docs/capacity.md): the fewest nodes holding a load, per policy,
# with its bracket, checked against the forward question on the same probes' settings:
#   - Basic needs 4 nodes for 1.5 APS of DS 27B within a 0.3 s TTFT (short probes, the TTFT-only rule) and DualPath
#     3: every split of the count below was probed and missed or ruled out by the read bound (Basic's 1P2D at 3
#     nodes: one storage NIC cannot read what 2P1D read there), a split of the answer met;
#   - the forward plans agree: `plan --nodes N --objective capacity` on the count below gives every split a bracket
#     below 1.5 APS, and on the answer some split a capacity at or above it (less the resolution);
#   - the plan's cost is the hand computation; a rerun probes nothing; bad input is refused.
# Usage: plan_target.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/ds27b-1p1d.json"
online=(--objective capacity --set workload.mode=online --set workload.aps=0.5 --set workload.duration=300s
        --set workload.stop=slo-ttft --slo-ttft 0.3s --jobs 2 --no-plot)
"$bin" plan "$sc" --target-aps 1.5 "${online[@]}" --vary policy.name=basic,dualpath --max-nodes 16 \
  --node-hour-cost 98.32 --out "$tmp/t" > "$tmp/t.out" 2> "$tmp/t.err" || { cat "$tmp/t.err"; exit 1; }
"$bin" plan "$sc" --target-aps 1.5 "${online[@]}" --vary policy.name=basic,dualpath --max-nodes 16 \
  --node-hour-cost 98.32 --out "$tmp/t" > "$tmp/again.out" 2> "$tmp/again.err" || exit 1
for n in 3 4; do
  "$bin" plan "$sc" --nodes $n "${online[@]}" --resolution 0.05 --policy basic --out "$tmp/basic$n" > /dev/null 2>&1 || exit 1
done
"$bin" plan "$sc" --nodes 2 "${online[@]}" --resolution 0.05 --policy dualpath --out "$tmp/dual2" > /dev/null 2>&1 || exit 1
PYTHONPATH="$root/tests/cli" python3 - "$tmp" <<'PY'
import json, sys
from checks import check, done
t = sys.argv[1]
p = json.load(open(f"{t}/t/plan.json"))
v = {x["policy"]: x for x in p["variants"]}
check(p["target_aps"] == 1.5 and p["max_nodes"] == 16, "plan.json records the question")
check(v["basic"]["nodes"] == 4 and v["basic"]["largest_failing_nodes"] == 3, f"Basic: 4 nodes hold, 3 do not ({v['basic']['nodes']})")
check(v["dualpath"]["nodes"] == 3 and v["dualpath"]["largest_failing_nodes"] == 2, f"DualPath: 3 nodes ({v['dualpath']['nodes']})")
for name, x in v.items():
    d = {e["nodes"]: e for e in x["decided"]}
    below, at = d[x["largest_failing_nodes"]], d[x["nodes"]]
    check(not below["holds"] and len(below["splits"]) == x["largest_failing_nodes"] - 1
          and not any(s["meets_slo"] for s in below["splits"]), f"{name}: every split of the count below was probed and missed")
    check(len(at["splits"]) == x["nodes"] - 1 and [h["split"] for h in x["holding_splits"]] ==
          [s["split"] for s in at["splits"] if s["meets_slo"]], f"{name}: at the answer every split probed, the holding ones named")
# The read bound: Basic's 2P1D at 3 nodes read faster than 1P2D's one storage NIC can, so 1P2D is ruled out unprobed.
b3 = {s["split"]: s for s in {e["nodes"]: e for e in v["basic"]["decided"]}[3]["splits"]}
check("ruled_out" in b3["1P2D"] and "probe" in b3["2P1D"]
      and b3["2P1D"]["probe"]["storage_read_per_s"] > 400e9 / 8,
      f"Basic at 3 nodes: 1P2D ruled out by the read bound ({b3['1P2D'].get('ruled_out')})")
check(not any("ruled_out" in s for e in v["dualpath"]["decided"] for s in e["splits"]
              if e["nodes"] == v["dualpath"]["nodes"] and s["meets_slo"]), "no holding split is ruled out")
check(p["recommendation"] == {"variant": "policy.name=dualpath", "nodes": 3, "tie": False, "tied_with": []},
      "recommends the policy needing fewer nodes")
# The forward question on the same settings agrees with the inverse one.
def caps(folder):
    return {f"{s['P']}P{s['D']}D": s for s in json.load(open(f"{t}/{folder}/plan.json"))["splits"]}
check(all((s["lowest_failing_aps"] or 0) <= 1.5 * 1.05 and (s["capacity_aps"] or 0) < 1.5 for s in caps("basic3").values()),
      "forward plan: no split of 3 nodes holds 1.5 APS under Basic")
check(any((s["capacity_aps"] or 0) >= 1.5 / 1.05 for s in caps("basic4").values()), "forward plan: some split of 4 nodes does")
check(all((s["capacity_aps"] or 0) < 1.5 for s in caps("dual2").values()), "forward plan: DualPath's 2 nodes do not")
# Cost at the answer: its nodes' hour spread over the target rate, at the holding probe's token rates.
c = v["basic"]["cost"]
probe = next(s["probe"] for s in {e["nodes"]: e for e in v["basic"]["decided"]}[4]["splits"] if s["meets_slo"])
want = {"per_hour": 4 * 98.32, "per_agent": 4 * 98.32 / 3600 / 1.5,
        "per_million_input_tokens": 4 * 98.32 / 3600 / (probe["prompt_tokens_per_s"] / 1e6)}
check(all(abs(c[k] - w) <= 1e-9 * w for k, w in want.items()), f"cost {c} is {want}")
check(" APS meets" not in open(f"{t}/again.err").read() and " APS misses" not in open(f"{t}/again.err").read(),
      "a rerun probes nothing")
check(open(f"{t}/t.out").read() == open(f"{t}/again.out").read(), "and answers the same")
done()
PY
rc=$?
source "$root/tests/cli/bad_input.bash"
fail=0
bad() { local name="$1" want="$2"; shift 2; bad_input "$name" "$want" "$bin" plan "$sc" "$@"; }
bad "a target on a JCT plan" "--target-aps: the fewest nodes for a load is a capacity question" --target-aps 2 --out "$tmp/b1"
bad "a target of 0" "--target-aps 0: expected agents per second in [0.001, 1000000]" --target-aps 0 "${online[@]}" --out "$tmp/b2"
bad "a target and --nodes" "excludes" --target-aps 2 --nodes 4 "${online[@]}" --out "$tmp/b3"
bad "--max-nodes alone" "requires --target-aps" --nodes 4 --max-nodes 8 "${online[@]}" --out "$tmp/b4"
bad "--ties alone" "requires --target-aps" --nodes 4 --ties "${online[@]}" --out "$tmp/b9"
bad "--bounds alone" "requires --target-aps" --nodes 4 --bounds off "${online[@]}" --out "$tmp/b10"
bad "--bounds maybe" "--bounds: maybe not in {on,off}" --target-aps 2 --bounds maybe "${online[@]}" --out "$tmp/b11"
bad "--max-nodes 1" "--max-nodes 1: expected 2 to 100000 nodes" --target-aps 2 --max-nodes 1 "${online[@]}" --out "$tmp/b5"
bad "a target with a resolution" "--resolution: the inverse question probes every split at the target rate" \
  --target-aps 2 --resolution 0.05 "${online[@]}" --out "$tmp/b7"
bad "a target in shards" "--target-aps: the inverse question runs in one process" --target-aps 2 --shard 0/2 "${online[@]}" \
  --out "$tmp/b6"
# A --set every probe would refuse (issue 80): exit 2 before any probe, no staging folder left.
bad "a --set every probe refuses" "workload.max_len: expected a length limit that fits the first round" --target-aps 2 \
  "${online[@]}" --set workload.max_len=100 --out "$tmp/b8"
[ -e "$tmp/b8" ] && { echo "FAIL a refused plan made its folder"; fail=1; }
[ $rc -eq 0 ] && exit $fail || exit 1
