#!/usr/bin/env bash
# Public trace formats (issue 47) through the command line, on the hand-made samples in tests/traces:
# - `trace convert --from bailian|azure|burstgpt` writes the native trajectories traces/FORMAT.md describes (checked
#   line by line), and `trace stats --from F` reports the source's counts;
# - a converted Bailian trace replays in `run` with its block hashes: the simulated hit rate is the zero-service
#   reference of the same trace, and the cross-conversation sample gets exactly its 32 of 60 tokens;
# - bad invocations name what to type.
# Usage: trace_formats.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
s=$root/tests/traces

"$bin" trace convert --from bailian "$s/bailian_sample.jsonl" -o "$tmp/bl.jsonl" 2>"$tmp/bl.err"
grep -qF "converted 6 requests of 3 sessions into 5 trajectories (1 multi-turn, block hashes on each); reusable share 58.18%" \
  "$tmp/bl.err" || fail "Bailian summary: $(cat "$tmp/bl.err")"
cat > "$tmp/bl.expected" <<'X'
{"id":"bl-10","arrival":0,"hashes":{"block":16,"tokens":70,"ids":[1,2,4,5,6]},"rounds":[[40,20,2],[10,10]]}
{"id":"bl-11","arrival":0.5,"hashes":{"block":16,"tokens":35,"ids":[1,2,9]},"rounds":[[35,5]]}
{"id":"bl-13","arrival":2.5,"hashes":{"block":16,"tokens":64,"ids":[1,2,4,7]},"rounds":[[64,8]]}
{"id":"bl-14","arrival":5,"hashes":{"block":16,"tokens":50,"ids":[1,2,4,8]},"rounds":[[50,4]]}
{"id":"bl-15","arrival":6,"hashes":{"block":16,"tokens":16,"ids":[11]},"rounds":[[16,1]]}
X
diff "$tmp/bl.expected" "$tmp/bl.jsonl" || fail "Bailian conversion differs"

"$bin" trace convert --from mooncake "$s/mooncake_sample.jsonl" -o "$tmp/mc.jsonl" 2>/dev/null
printf '%s\n' '{"id":"mc-1","arrival":0,"hashes":{"block":512,"tokens":1800,"ids":[0,1,4,5]},"rounds":[[1200,100,3],[500,60]]}' \
  '{"id":"mc-2","arrival":1.5,"hashes":{"block":512,"tokens":700,"ids":[0,3]},"rounds":[[700,40]]}' \
  '{"id":"mc-4","arrival":6,"hashes":{"block":512,"tokens":1100,"ids":[0,7,8]},"rounds":[[1100,20]]}' \
  | diff - "$tmp/mc.jsonl" || fail "Mooncake conversion (hashes) differs"

"$bin" trace convert --from azure "$s/azure_sample.csv" -o "$tmp/az.jsonl" 2>/dev/null
printf '%s\n' '{"id":"az-2","arrival":0,"rounds":[[374,44]]}' '{"id":"az-3","arrival":4.314579,"rounds":[[396,109]]}' \
  '{"id":"az-4","arrival":15.81941,"rounds":[[1,12]]}' | diff - "$tmp/az.jsonl" || fail "Azure conversion differs"
"$bin" trace convert --from burstgpt "$s/burstgpt_sample.csv" -o "$tmp/bg.jsonl" 2>"$tmp/bg.err"
printf '%s\n' '{"id":"bg-2","arrival":3,"rounds":[[610,25]]}' '{"id":"bg-3","arrival":40,"rounds":[[1200,310]]}' \
  '{"id":"bg-5","arrival":120,"rounds":[[1,14]]}' | diff - "$tmp/bg.jsonl" || fail "BurstGPT conversion differs"
grep -qF "4 requests into 3 single-round trajectories (1 failed ones dropped" "$tmp/bg.err" || fail "BurstGPT summary"

"$bin" trace stats --from bailian --json --block-tokens 16 "$s/bailian_sample.jsonl" > "$tmp/bl_stats.json"
"$bin" trace stats --from burstgpt --json "$s/burstgpt_sample.csv" > "$tmp/bg_stats.json"
"$bin" trace stats --json --block-tokens 4 "$s/cross_conversation.jsonl" > "$tmp/cc_stats.json"
# The text report names the per-model counts too, as FORMAT.md says (issue 68: only --json had them).
"$bin" trace stats --from burstgpt "$s/burstgpt_sample.csv" | grep -qxF "  models:          ChatGPT 1, GPT-4 2 (requests kept, per Model)" \
  || fail "trace stats --from burstgpt prints no per-model counts"
python3 - "$tmp" <<'PY' || fail "stats"
import json, sys
t = sys.argv[1]
b = json.load(open(f"{t}/bl_stats.json"))["bailian"]
want = {"requests": 6, "sessions": 3, "orphans": 1, "continued_requests": 1, "branches": 1, "split_requests": 1,
        "zero_outputs": 1, "types": {"image": 1, "search": 1, "text": 4}, "reusable_share": 0.58182}
bad = {k: (b.get(k), v) for k, v in want.items() if b.get(k) != v}
g = json.load(open(f"{t}/bg_stats.json"))["burstgpt"]
if g != {"requests": 4, "dropped": 1, "clamped": 1, "models": {"ChatGPT": 1, "GPT-4": 2}}: bad["burstgpt"] = g
c = json.load(open(f"{t}/cc_stats.json"))["replay"]
if abs(c["kv_hit_rate"] - 32 / 60) > 1e-5: bad["cross_conversation"] = c
print(bad or "stats as expected")
sys.exit(1 if bad else 0)
PY

# Replayed by the simulator at the trace's own arrivals with 16-token blocks (the trace's own): the run's hit rate
# is its zero-service reference (a sparse trace: no request waits behind another's writes).
"$bin" run "$root/scenarios/default.json" --quiet --out "$tmp/run" --set policy.name=basic --set policy.block_tokens=16 \
  --set workload.source=file --set "workload.file=$tmp/bl.jsonl" --set workload.mode=online --set workload.aps=0 \
  --set 'workload.duration=0 s'
python3 - "$tmp/run/summary.json" <<'PY' || fail "Bailian replay"
import json, sys
r = json.load(open(sys.argv[1]))
hit, ref = r["reuse"]["kv_hit_rate"], r["reuse"]["kv_hit_rate_zero_service"]
print(f"Bailian sample replayed: hit {hit:.4f}, zero-service reference {ref:.4f}, rounds {r['results']['rounds']}")
sys.exit(0 if abs(hit - ref) < 1e-9 and ref > 0.5 and r["results"]["rounds"] == 6 else 1)
PY

expect() {  # expect TEXT CMD...: exit 2 and TEXT on stderr
  local want=$1
  shift
  if "$bin" "$@" 2>"$tmp/err" >/dev/null; then fail "accepted: $*"; fi
  grep -qF -- "$want" "$tmp/err" || fail "'$*' said: $(cat "$tmp/err") (expected: $want)"
}
expect "--from: expected one of mooncake | bailian | azure | burstgpt (or native for stats), found 'sharegpt'; e.g. --from mooncake" \
  trace convert --from sharegpt "$s/azure_sample.csv" -o "$tmp/x.jsonl"
expect "--reuse: expected 'hashes' (exact reuse from block hashes) or 'prefix'" \
  trace convert --from mooncake --reuse exact "$s/azure_sample.csv" -o "$tmp/x.jsonl"
expect "--reuse: expected 'hashes' for a Bailian trace" \
  trace convert --from bailian --reuse prefix "$s/bailian_sample.jsonl" -o "$tmp/x.jsonl"
expect "azure_sample.csv:1: expected the header 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type'" \
  trace convert --from burstgpt "$s/azure_sample.csv" -o "$tmp/x.jsonl"
expect "workload.gen_scale: expected 1 for a trace with block hashes" \
  run "$root/scenarios/default.json" --quiet --out "$tmp/r2" --set workload.source=file --set "workload.file=$tmp/bl.jsonl" \
  --set workload.mode=online --set workload.aps=0 --set 'workload.duration=0 s' --set workload.gen_scale=2
echo "trace formats passed"
