#!/usr/bin/env bash
# --shard I/N on sweep, plan and capacity (issue 21), without Slurm: N shards then the same command without
# --shard give the same results as one process (sweep.csv and plan.json byte for byte; capacity.json but for its
# count of reused probes); a shard killed midway leaves nothing that counts, and the merge runs only what is
# missing; a sharded capacity plan's merge runs no probe; bad --shard values get exit 2. Usage: shard.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

sc="$root/scenarios/default.json"
sweep=(sweep "$sc" --vary workload.agents=16,512 --vary policy.name=basic,dualpath --no-plot --jobs 1)
"$bin" "${sweep[@]}" --out "$tmp/one" > /dev/null 2>&1 || fail "single-process sweep"
for i in 0 1 3; do "$bin" "${sweep[@]}" --out "$tmp/sh" --shard "$i/4" > "$tmp/shard$i.out" 2>&1 || fail "shard $i"; done
grep -q "shard 1/4: 1 run" "$tmp/shard1.out" || fail "shard 1/4 should run one point: $(cat "$tmp/shard1.out")"
[[ ! -e $tmp/sh/sweep.csv ]] || fail "a shard wrote sweep.csv (only the merge does)"
# Shard 2 (512 agents, basic: about a second; 128 agents ran in 0.28 s once the start-up stopped loading cuBLAS, so
# the 0.3-s kill came too late) killed midway: its point must not count.
( timeout -s KILL 0.3 "$bin" "${sweep[@]}" --out "$tmp/sh" --shard 2/4 > /dev/null 2>&1 ) 2> /dev/null && fail "shard 2 was not killed"
for _ in $(seq 40); do pgrep -f -- "--out $tmp/sh" > /dev/null || break; sleep 0.25; done  # SIGKILL lands
[[ ! -e "$tmp/sh/points/workload.agents=512__policy.name=basic" ]] || fail "the killed shard's point was published"
"$bin" "${sweep[@]}" --out "$tmp/sh" > "$tmp/merge.out" 2>&1 || fail "merge: $(cat "$tmp/merge.out")"
grep -q "sweep: 1 run, 3 skipped, 0 failed" "$tmp/merge.out" || fail "the merge should run only the missing point: $(cat "$tmp/merge.out")"
cmp "$tmp/one/sweep.csv" "$tmp/sh/sweep.csv" || fail "merged sweep.csv differs from the single-process one"
ls "$tmp/sh/points" | grep -q staging && fail "staging folders left behind: $(ls "$tmp/sh/points")"

plan=(plan "$root/scenarios/ds27b-1p1d.json" --nodes 3 --set workload.agents=64 --no-plot --jobs 1)
"$bin" "${plan[@]}" --out "$tmp/p1" > /dev/null 2>&1 || fail "single-process plan"
for i in 0 1; do "$bin" "${plan[@]}" --out "$tmp/p2" --shard "$i/2" > /dev/null 2>&1 || fail "plan shard $i"; done
"$bin" "${plan[@]}" --out "$tmp/p2" > "$tmp/pm.out" 2>&1 || fail "plan merge"
grep -q "evaluating" "$tmp/pm.out" && fail "the plan merge re-ran candidates: $(cat "$tmp/pm.out")"
cmp "$tmp/p1/plan.json" "$tmp/p2/plan.json" || fail "merged plan.json differs from the single-process one"

cap=(capacity "$root/scenarios/ds27b-1p1d.json" --policy basic --set workload.mode=online --set workload.aps=0.5
     --set workload.duration=300s --set workload.stop=slo-ttft --slo-ttft 0.3s --resolution 0.2 --no-plot --jobs 2)
"$bin" "${cap[@]}" --out "$tmp/c1" > /dev/null 2>&1 || fail "single-process capacity"
"$bin" "${cap[@]}" --out "$tmp/c2" --shard 1/2 > /dev/null 2>&1 || fail "capacity shard 1"
"$bin" "${cap[@]}" --out "$tmp/c2" --shard 0/2 > /dev/null 2>&1 || fail "capacity shard 0"
"$bin" "${cap[@]}" --out "$tmp/c2" > /dev/null 2>&1 || fail "capacity merge"
python3 - "$tmp/c1/capacity.json" "$tmp/c2/capacity.json" <<'PY' || fail "merged capacity.json differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for j in (a, b):
    for p in j["policies"].values():
        p.pop("probes_reused")
sys.exit(0 if a == b else 1)
PY

# A capacity plan in two shards: each searches its own split to the resolution; the merge takes both as they
# are (no probe run) and recommends from their brackets.
cplan=(plan "$root/scenarios/ds27b-1p1d.json" --nodes 3 --objective capacity --policy basic --resolution 0.2
       --set workload.mode=online --set workload.aps=0.5 --set workload.duration=300s --set workload.stop=slo-ttft --slo-ttft 0.3s --no-plot --jobs 2)
for i in 0 1; do "$bin" "${cplan[@]}" --out "$tmp/cp" --shard "$i/2" > /dev/null 2>&1 || fail "capacity plan shard $i"; done
"$bin" "${cplan[@]}" --out "$tmp/cp" > "$tmp/cpm.out" 2>&1 || fail "capacity plan merge: $(cat "$tmp/cpm.out")"
grep -q "probing" "$tmp/cpm.out" && fail "the capacity plan merge ran probes: $(cat "$tmp/cpm.out")"
python3 - "$tmp/cp/plan.json" <<'PY' || fail "the merged capacity plan"
import json, sys
p = json.load(open(sys.argv[1]))
s = [x for x in p["splits"] if x["feasible"]]
ok = len(s) == 2 and all(x["search"] == "done" and x["lowest_failing_aps"] <= 1.2 * x["capacity_aps"] for x in s)
best = max(s, key=lambda x: x["capacity_aps"])
sys.exit(0 if ok and p["recommendation"]["split"] == f"{best['P']}P{best['D']}D" else 1)
PY

expect_bad() {  # expect_bad ARGS... : exit 2 with one line naming --shard or --jobs
  local rc=0
  "$bin" "$@" > "$tmp/bad.out" 2> "$tmp/bad.err" || rc=$?
  [[ $rc -eq 2 && $(wc -l < "$tmp/bad.err") -eq 1 ]] && grep -qE -- "--shard|--jobs" "$tmp/bad.err" \
    || fail "expected exit 2 and one line for $*: rc=$rc $(cat "$tmp/bad.err")"
}
for s in 4/4 -1/4 1/0 a/b 1 /4 1/; do expect_bad "${sweep[@]}" --out "$tmp/bad" --shard "$s"; done
expect_bad capacity "$root/scenarios/ds27b-1p1d.json" --set workload.mode=online --set workload.aps=0.5 \
  --set workload.duration=300s --set workload.stop=slo-ttft --out "$tmp/badc" --shard 0/2
echo "shards passed"
