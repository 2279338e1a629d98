#!/usr/bin/env bash
# Replaying a real trace faithfully (issue 18), on a generated Mooncake-format trace with heavy cross-session
# sharing (tests/cli/mooncake_gen.py):
# - converted with --reuse prefix, the trace names shared prefixes ("parent"/"shared"), and the simulated KV hit rate
#   at the Mooncake block size equals the trace's reusable share within 1 point (without parent links it is far
#   below); converted with block hashes (the default), within 0.3 points (issue 47: exact content addressing);
# - online aps = 0 replays the trace's own arrival times: round 0 of every agent arrives at its trajectory's
#   `arrival`, and time_scale = 0.5 halves them;
# - offline agents = 0 runs one agent per trajectory.
# Usage: trace_replay.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$root/tests/cli/mooncake_gen.py" 7 "$tmp/mc.jsonl"
"$bin" trace convert --from mooncake --reuse prefix "$tmp/mc.jsonl" -o "$tmp/trace.jsonl" 2>"$tmp/conv.err"
"$bin" trace convert --from mooncake "$tmp/mc.jsonl" -o "$tmp/hashed.jsonl" 2>/dev/null
grep -q '"hashes":{"block":512,' "$tmp/hashed.jsonl" || fail "the converted trace carries no block hashes"
share=$(sed -n 's/.*reusable prefix share \([0-9.]*\)%.*/\1/p' "$tmp/conv.err")
[[ -n $share ]] || fail "no reusable share in: $(cat "$tmp/conv.err")"
grep -q '"parent":' "$tmp/trace.jsonl" || fail "the converted trace names no shared prefix"

run() {  # run NAME SET... : DS 27B 1P1D, Basic, 512-token blocks (Mooncake's), the converted trace
  local name=$1
  shift
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  "$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/$name" --set policy.name=basic \
    --set policy.block_tokens=512 --set workload.source=file --set "workload.file=$tmp/trace.jsonl" "${sets[@]}"
}
run online workload.mode=online workload.aps=0 'workload.duration=0 s'
run faster workload.mode=online workload.aps=0 'workload.duration=0 s' workload.time_scale=0.5
run offline workload.mode=offline workload.agents=0
run hashed workload.mode=online workload.aps=0 'workload.duration=0 s' "workload.file=$tmp/hashed.jsonl"

python3 - "$tmp" "$share" <<'PY'
import csv, json, sys
tmp, share = sys.argv[1], float(sys.argv[2]) / 100
fails = []
traj = [json.loads(l) for l in open(f"{tmp}/trace.jsonl")]
rounds = sum(len(t["rounds"]) for t in traj)
s = json.load(open(f"{tmp}/online/summary.json"))
hit, ref = s["reuse"]["kv_hit_rate"], s["reuse"]["kv_hit_rate_zero_service"]
print(f"reusable share {share:.4f}, simulated hit rate {hit:.4f}, zero-service reference {ref:.4f}, "
      f"shared {s['reuse']['shared_hit_rate_zero_service']:.4f}")
if abs(hit - share) > 0.01:
    fails.append(f"simulated hit rate {hit:.4f} is not within 1 point of the trace's reusable share {share:.4f}")
h = json.load(open(f"{tmp}/hashed/summary.json"))["reuse"]["kv_hit_rate"]
print(f"with block hashes: simulated hit rate {h:.4f}")
if abs(h - share) > 0.003:
    fails.append(f"with block hashes the simulated hit rate {h:.4f} is not within 0.3 points of the share {share:.4f}")
if s["reuse"]["shared_hit_rate_zero_service"] < 0.2:
    fails.append("the generated trace should draw most of its reuse from shared prefixes")
if s["results"]["rounds"] != rounds:
    fails.append(f"online replay ran {s['results']['rounds']} rounds, the trace has {rounds}")
# Round 0 of agent k arrives at the k-th arrival of the trace (agents start in arrival order).
arrivals = sorted(t["arrival"] for t in traj)
for name, scale in (("online", 1.0), ("faster", 0.5)):
    with open(f"{tmp}/{name}/requests.csv") as f:
        first = sorted(float(r["arrival"]) for r in csv.DictReader(f) if r["round"] == "0")
    if len(first) != len(arrivals):
        fails.append(f"{name}: {len(first)} agents, the trace has {len(arrivals)} trajectories")
    worst = max(abs(a - scale * b) for a, b in zip(first, arrivals))
    if worst > 1e-6:
        fails.append(f"{name}: first arrivals differ from the trace's (x{scale}) by up to {worst} s")
o = json.load(open(f"{tmp}/offline/summary.json"))
if o["results"]["agents"] != len(traj) or o["results"]["rounds"] != rounds:
    fails.append(f"offline agents = 0 ran {o['results']['agents']} agents / {o['results']['rounds']} rounds, "
                 f"expected {len(traj)} / {rounds}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
echo "trace replay passed"
