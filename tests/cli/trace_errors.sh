#!/usr/bin/env bash
# Bad trace inputs: each must exit 2 with exactly one line on stderr naming the file (and line), never crash.
# Usage: trace_errors.sh <dualpath-binary> <repo-root>
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect_error NAME EXPECTED_SUBSTRING -- ARGS...: runs dualpath ARGS, checks exit 2, one stderr line, substring.
expect_error() {
  local name=$1 want=$2; shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [[ $rc -ne 2 || $lines -ne 1 ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL $name: rc=$rc stderr_lines=$lines want '$want'; stderr:"; cat "$tmp/err"; fails=$((fails + 1))
  else
    echo "ok   $name: $(cat "$tmp/err")"
  fi
}

good='{"id":"a","rounds":[[10,5]]}'
mc_good='{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}'

printf '%s\n%s\n' "$good" '{"id":"b","rounds":[[10,5]]' >"$tmp/malformed.jsonl"
expect_error malformed_json "malformed.jsonl:2:" -- trace stats "$tmp/malformed.jsonl"

printf '%s\n' '{"id":"a","rounds":[[-3,5]]}' >"$tmp/negative.jsonl"
expect_error negative_tokens "negative.jsonl:1:" -- trace stats "$tmp/negative.jsonl"

printf '%s\n%s\n%s\n' "$good" '{"id":"b","rounds":[[10,5]]}' '{"id":"c","rounds":[[10,0]]}' >"$tmp/zero.jsonl"
expect_error zero_gen "zero.jsonl:3:" -- trace stats "$tmp/zero.jsonl"

printf '%s\n' '{"id":"a","rounds":[[10.5,5]]}' >"$tmp/float.jsonl"
expect_error non_integer "float.jsonl:1:" -- trace stats "$tmp/float.jsonl"

printf '%s\n' '{"id":"a","rounds":[["10",5]]}' >"$tmp/type.jsonl"
expect_error wrong_type "type.jsonl:1:" -- trace stats "$tmp/type.jsonl"

printf '%s\n' '{"id":"a"}' >"$tmp/nokey.jsonl"
expect_error missing_rounds "nokey.jsonl:1: missing key 'rounds'" -- trace stats "$tmp/nokey.jsonl"

printf '%s\n' '{"id":"a","rounds":[[1,1]],"arival":3}' >"$tmp/unknown.jsonl"
expect_error unknown_key "unknown.jsonl:1: unknown key 'arival'" -- trace stats "$tmp/unknown.jsonl"

: >"$tmp/empty.jsonl"
expect_error empty_file "empty.jsonl: expected at least one trajectory" -- trace stats "$tmp/empty.jsonl"

printf '%s\n%s\n' "$good" "$good" >"$tmp/dup.jsonl"
expect_error duplicate_id "dup.jsonl:2:" -- trace stats "$tmp/dup.jsonl"

expect_error missing_file "$tmp/nope.jsonl" -- trace stats "$tmp/nope.jsonl"

expect_error unknown_profile "--profile: expected a workload profile" -- trace gen --profile 128k --trajectories 5

expect_error zero_trajectories "--trajectories" -- trace gen --profile 64k --trajectories 0
expect_error unknown_reading "--reading: expected a Table 2 reading (rounds, trajectories), found 'requests'" -- \
  trace gen --profile 64k --reading requests --trajectories 5
expect_error calibrate_unknown_profile "--profile: expected a workload profile" -- trace calibrate --profile 16k
expect_error calibrate_zero_seeds "--seeds: expected an integer in [1, 1000], found 0" -- \
  trace calibrate --profile 32k --seeds 0

printf '%s\n%s\n' "$mc_good" '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1, 2]}' >"$tmp/mc_len.jsonl"
expect_error mooncake_hash_len "mc_len.jsonl:2: hash_ids: expected ceil(input_length/512) = 2" -- \
  trace convert --from mooncake "$tmp/mc_len.jsonl" -o "$tmp/out.jsonl"

printf '%s\n' '{"timestamp": 0, "input_length": 600, "hash_ids": [0, 1]}' >"$tmp/mc_key.jsonl"
expect_error mooncake_missing_key "mc_key.jsonl:1: missing key 'output_length'" -- \
  trace convert --from mooncake "$tmp/mc_key.jsonl" -o "$tmp/out.jsonl"

printf '%s\n' '{"timestamp": 0, "input_length": 600, "output_length": -5, "hash_ids": [0, 1]}' >"$tmp/mc_neg.jsonl"
expect_error mooncake_negative "mc_neg.jsonl:1: output_length" -- trace stats --from mooncake "$tmp/mc_neg.jsonl"

printf '%s\n' '{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": "0,1"}' >"$tmp/mc_type.jsonl"
expect_error mooncake_wrong_type "mc_type.jsonl:1: hash_ids" -- trace stats --from mooncake "$tmp/mc_type.jsonl"

printf '%s\n{oops\n' "$mc_good" >"$tmp/mc_bad.jsonl"
expect_error mooncake_malformed "mc_bad.jsonl:2:" -- trace stats --from mooncake "$tmp/mc_bad.jsonl"

printf '%s\n' "$good" >"$tmp/good.jsonl"
expect_error bad_from "--from: expected one of mooncake | bailian | azure | burstgpt" -- trace convert --from sharegpt "$tmp/good.jsonl" -o "$tmp/x.jsonl"

expect_error unwritable_output "/nonexistent-dir/x.jsonl" -- trace gen --profile 32k --trajectories 2 -o /nonexistent-dir/x.jsonl

# Shared prefixes (issue 18): an unknown parent, a negative length, a parent shorter than the shared part, a cycle,
# and a run on such a trace (the reader's error reaches `run` too); --block-tokens out of range.
printf '%s\n%s\n' "$good" '{"id":"b","parent":"zz","shared":5,"rounds":[[10,5]]}' >"$tmp/parent.jsonl"
expect_error unknown_parent "parent.jsonl:2: parent: expected the id of a trajectory in this trace, found 'zz'" -- \
  trace stats "$tmp/parent.jsonl"
printf '%s\n%s\n' "$good" '{"id":"b","parent":"a","shared":-4,"rounds":[[10,5]]}' >"$tmp/shared_neg.jsonl"
expect_error negative_shared "shared_neg.jsonl:2: shared tokens" -- trace stats "$tmp/shared_neg.jsonl"
printf '%s\n%s\n' "$good" '{"id":"b","parent":"a","shared":16,"rounds":[[20,5]]}' >"$tmp/shared_long.jsonl"
expect_error shared_past_parent "shared_long.jsonl:2: shared: expected at most the 15 tokens of parent 'a'" -- \
  trace stats "$tmp/shared_long.jsonl"
printf '%s\n%s\n' '{"id":"a","parent":"b","shared":3,"rounds":[[10,5]]}' \
  '{"id":"b","parent":"a","shared":3,"rounds":[[10,5]]}' >"$tmp/cycle.jsonl"
expect_error parent_cycle "cycle.jsonl:1: parent: expected a chain of parents that ends, found the cycle a -> b -> a" -- \
  trace stats "$tmp/cycle.jsonl"
# A cycle through 2000 trajectories: one line of a readable length, naming its first ids and its length.
for i in $(seq 0 1999); do
  printf '{"id":"t%d","parent":"t%d","shared":3,"rounds":[[10,5]]}\n' "$i" $(((i + 1) % 2000))
done >"$tmp/long_cycle.jsonl"
expect_error long_cycle "found the cycle t0 -> t1 -> t2 -> t3 -> t4 -> ... (2000 trajectories in the cycle)" -- \
  trace stats "$tmp/long_cycle.jsonl"
[ "$(wc -c <"$tmp/err")" -lt 400 ] || { echo "FAIL long_cycle: the message is $(wc -c <"$tmp/err") bytes"; fails=$((fails + 1)); }
# A Bailian request whose parent arrives after it: the error names the file and line.
printf '%s\n%s\n' \
  '{"chat_id": 1, "parent_chat_id": 2, "timestamp": 0, "input_length": 16, "output_length": 1, "type": "text", "turn": 2, "hash_ids": [1]}' \
  '{"chat_id": 2, "parent_chat_id": -1, "timestamp": 1, "input_length": 16, "output_length": 1, "type": "text", "turn": 1, "hash_ids": [1]}' \
  >"$tmp/bailian_order.jsonl"
expect_error bailian_parent_order "bailian_order.jsonl:1: parent_chat_id: expected a request that arrives before" -- \
  trace convert --from bailian "$tmp/bailian_order.jsonl" -o "$tmp/b.jsonl"
expect_error run_on_cycle "cycle.jsonl:1:" -- run "$2/scenarios/default.json" --set workload.source=file \
  --set "workload.file=$tmp/cycle.jsonl" --out "$tmp/run"
expect_error block_tokens "--block-tokens: expected an integer in [1, 1048576], found 0" -- \
  trace stats "$tmp/good.jsonl" --block-tokens 0

if [[ $fails -ne 0 ]]; then echo "$fails case(s) failed"; exit 1; fi
echo "all trace error cases passed"
