#!/usr/bin/env bash
# The output rule (issue 68, core/config/output_file.hpp): every file a command writes is a regular file or nothing
# yet, or a character device (or a link to one), written through: -o /dev/null discards, --junit /dev/stdout prints
# (issue 80); a pipe, a folder, a symbolic link to a file or one of the command's own inputs is refused at load with
# one line naming the option and the path (exit 2), before any work, and is left as it was; a trace is written
# through a temporary, so a refused or failed write leaves no cut file.
# Usage: output_rule.sh <dualpath-binary> <repo-root>
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

source "$root/tests/cli/bad_input.bash"  # bad_input NAME WANT CMD...: exit 2 with WANT in its output
check() {  # NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}

# Inputs: a Mooncake trace, a small run (the run checked and the reference of validate).
for i in 0 1 2 3; do
  printf '{"timestamp": %d, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}\n' $((i * 1000))
done >"$tmp/mooncake.jsonl"
cp "$tmp/mooncake.jsonl" "$tmp/mooncake.orig"
"$bin" run "$root/scenarios/default.json" --policy dualpath --set workload.agents=4 --quiet --out "$tmp/run" \
  >/dev/null 2>&1 || { echo "FAIL the input run"; exit 1; }
cp "$tmp/run/summary.json" "$tmp/summary.orig"
mkdir "$tmp/folder"
ln -s "$tmp/target.jsonl" "$tmp/link.jsonl"

# trace convert onto its own input: refused before reading; the input is untouched.
bad_input convert_onto_input "the command's own input" "$bin" trace convert --from mooncake "$tmp/mooncake.jsonl" \
  -o "$tmp/mooncake.jsonl"
check convert_input_untouched cmp -s "$tmp/mooncake.jsonl" "$tmp/mooncake.orig"
# ... onto a character device: written through (discarded), the device left a device, no temporary beside it.
check convert_onto_dev_null "$bin" trace convert --from mooncake "$tmp/mooncake.jsonl" -o /dev/null
check dev_null_still_a_device test -c /dev/null
ln -s /dev/null "$tmp/null_link"
check convert_onto_a_link_to_a_device "$bin" trace convert --from mooncake "$tmp/mooncake.jsonl" -o "$tmp/null_link"
check device_link_still_a_link test -L "$tmp/null_link" -a -c "$tmp/null_link"
# ... through a pipe: what a reader at its other end gets is the whole trace.
mkfifo "$tmp/pipe"
cat "$tmp/pipe" > "$tmp/from_pipe.jsonl" &
"$bin" trace convert --from mooncake "$tmp/mooncake.jsonl" -o "$tmp/pipe" > /dev/null 2>&1
wait
"$bin" trace convert --from mooncake "$tmp/mooncake.jsonl" -o "$tmp/direct.jsonl" > /dev/null 2>&1
check convert_through_a_pipe cmp -s "$tmp/from_pipe.jsonl" "$tmp/direct.jsonl"
# ... onto a folder, a link to a file, or into a folder that does not exist.
bad_input gen_onto_folder "a folder, not a regular file" "$bin" trace gen --profile 64k --trajectories 2 -o "$tmp/folder"
bad_input gen_onto_link "is a symbolic link" "$bin" trace gen --profile 64k --trajectories 2 -o "$tmp/link.jsonl"
check link_target_not_written test ! -e "$tmp/target.jsonl"
touch "$tmp/a_file"
bad_input gen_file_in_the_way "is a file, not a folder" "$bin" trace gen --profile 64k --trajectories 2 -o "$tmp/a_file/t.jsonl"
bad_input gen_no_folder "its folder $tmp/none does not exist" "$bin" trace gen --profile 64k --trajectories 2 \
  -o "$tmp/none/t.jsonl"
check gen_made_no_folder test ! -e "$tmp/none"
# A JUnit report's folder is made (docs/ci.md writes reports/claims.xml into a fresh checkout).
"$bin" validate "$tmp/run" "$tmp/run" --junit "$tmp/reports/v.xml" >/dev/null 2>&1
check junit_makes_its_folder test -s "$tmp/reports/v.xml"
# A good conversion leaves the trace and no temporary beside it.
"$bin" trace convert --from mooncake "$tmp/mooncake.jsonl" -o "$tmp/native.jsonl" >/dev/null 2>&1
check convert_writes_whole sh -c "\"$bin\" trace stats \"$tmp/native.jsonl\" >/dev/null 2>&1"
check convert_leaves_no_temporary test -z "$(find "$tmp" -name '*.partial')"

# validate: its reports never replace a device nor a file of the runs it compares, and both are checked before any
# is written.
"$bin" validate "$tmp/run" "$tmp/run" --junit /dev/stdout > "$tmp/junit_stdout.xml" 2>/dev/null
check validate_junit_to_stdout_redirected grep -q '<testsuites' "$tmp/junit_stdout.xml"
check validate_junit_to_stdout_piped sh -c "\"$bin\" validate \"$tmp/run\" \"$tmp/run\" --junit /dev/stdout 2>/dev/null | grep -q '<testsuites'"
check dev_null_still_a_device_after_validate test -c /dev/null
bad_input validate_json_onto_run "which the command reads" "$bin" validate "$tmp/run" "$tmp/run" \
  --json "$tmp/run/summary.json"
check validate_run_untouched cmp -s "$tmp/run/summary.json" "$tmp/summary.orig"
bad_input validate_json_bad_after_good_junit "is a file, not a folder" "$bin" validate "$tmp/run" "$tmp/run" \
  --junit "$tmp/report.xml" --json "$tmp/a_file/out.json"
check no_junit_before_a_refusal test ! -e "$tmp/report.xml"
"$bin" validate "$tmp/run" "$tmp/run" --junit "$tmp/report.xml" --json "$tmp/report.json" >/dev/null 2>&1
check validate_writes_both test -s "$tmp/report.xml" -a -s "$tmp/report.json"

# claims --junit: refused before any simulation runs (it would take minutes).
bad_input claims_junit_folder "a folder, not a regular file" "$bin" claims --only 1 --out "$tmp/claims" --junit "$tmp/folder"
check claims_ran_nothing test ! -e "$tmp/claims"

# analyze cost --write-profile: never onto its inputs or a device.
topo="$root/topologies/hopper-8gpu-80g.json"
cp "$root/models/ds-27b.json" "$tmp/model.json"
bad_input profile_onto_model "the command's own input" "$bin" analyze cost --model "$tmp/model.json" --topology "$topo" \
  --write-profile "$tmp/model.json" --label x
check model_untouched cmp -s "$tmp/model.json" "$root/models/ds-27b.json"
check profile_onto_dev_null "$bin" analyze cost --model "$tmp/model.json" --topology "$topo" --write-profile /dev/null \
  --label x

[ "$fail" -eq 0 ] && echo "output rule: all cases passed"
