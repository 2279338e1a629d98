#!/usr/bin/env bash
# Issue 46's bad-input classes, each fixed at its root and fed a few variants here (exit 2, one line naming the
# file, line or key and what was expected):
#   1. control bytes inside JSON or line-oriented input (a NUL after an object, which the JSON reader took for the
#      end of the text; other control bytes): refused by the strict JSON parser, wherever JSON is read;
#   2. `report` onto or from bad places (an --out that is a file or runs through one; a results folder that does
#      not exist or is a file; a CSV cut short mid-row or missing its last newline);
#   3. durations no run can reach (above the 1e9 s horizon): refused at load, naming the key;
#   4. a folder where a file is expected (a trace, a Mooncake trace, a scenario, an overlay): said so;
#   5. command-line text that is not printable UTF-8 (--set, --vary, --fault; the command-line fuzzer's first
#      finding: a stray byte in --fault ended the run with a JSON library error, exit 1);
#   6. issue 68's exit-1-or-silence cases, refused at load: a key repeated in a --fault string or inside a --set JSON
#      value (the file readers refuse repeats), a fault factor of 1 (the message says the open range it checks), `claims --out` onto a file
#      (before any simulation), an SLO no run could miss (`capacity --slo-tpot "1e300 s"`);
#   7. issue 68's unbounded reads: a JSON file above 64 MiB is refused before it is read (a 2 GB file of NULs took
#      4.3 GB), a line above 64 MiB after that much of it, in every line-based reader, in bounded memory; and the
#      start-up itself stays light (--version, check, a converter under 100 MB: cuBLAS is loaded on demand).
# Usage: bad_input_classes.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
source "$root/tests/cli/bad_input.bash"
sc="$root/scenarios/default.json"
line='{"id":"a","rounds":[[1000,10],[200,10,0.5]]}'

# 1. Control bytes.
printf '%s\0junk\n' "$line" > "$tmp/nul_after.jsonl"
printf '%s\n{"id":"b","rounds":[[1000,10]]}\0\n' "$line" > "$tmp/nul_line2.jsonl"
printf '{"id":"a\001","rounds":[[1000,10]]}\n' > "$tmp/ctl_in_string.jsonl"
printf '%s\x1b\n' "$line" > "$tmp/esc_after.jsonl"
bad_input "NUL after a trace line's object" "nul_after.jsonl:1:" "$bin" trace stats "$tmp/nul_after.jsonl"
bad_input "NUL on line 2" "nul_line2.jsonl:2:" "$bin" trace stats "$tmp/nul_line2.jsonl"
bad_input "a control byte inside a string" "control byte 0x01" "$bin" trace stats "$tmp/ctl_in_string.jsonl"
bad_input "ESC after an object" "control byte 0x1B" "$bin" trace stats "$tmp/esc_after.jsonl"
printf '{"timestamp":0,"input_length":10,"output_length":1,"hash_ids":[1]}\0\n' > "$tmp/mc.jsonl"
bad_input "NUL in a Mooncake line" "mc.jsonl:1:" "$bin" trace convert --from mooncake "$tmp/mc.jsonl" -o "$tmp/mc_out.jsonl"
cp "$sc" "$tmp/nul_scenario.json"; printf '\0' >> "$tmp/nul_scenario.json"
sed -i "s#\"\.\./#\"$root/#g" "$tmp/nul_scenario.json"
bad_input "NUL after a scenario's object" "control byte 0x00 (NUL)" "$bin" check "$tmp/nul_scenario.json"

# 2. report onto or from bad places.
"$bin" run "$sc" --set workload.agents=4 --quiet --out "$tmp/run" > /dev/null || { echo "FAIL the run"; exit 1; }
touch "$tmp/a_file"
bad_input "report --out onto a file" "--out $tmp/a_file" "$bin" report "$tmp/run" --out "$tmp/a_file"
bad_input "report --out through a file" "--out $tmp/a_file/sub" "$bin" report "$tmp/run" --out "$tmp/a_file/sub"
bad_input "report on a missing folder" "no such folder" "$bin" report "$tmp/nowhere"
bad_input "report on a file" "is a file, expected a results folder" "$bin" report "$tmp/a_file"
for csv in requests links waits; do
  cp -r "$tmp/run" "$tmp/cut_$csv"
  f="$tmp/cut_$csv/$csv.csv"
  head -c $(( $(wc -c < "$f") - 7 )) "$f" > "$f.tmp" && mv "$f.tmp" "$f"  # cut mid-row: no final newline
  bad_input "report on a $csv.csv cut mid-row" "$csv.csv: the last row does not end with a newline" \
    "$bin" report "$tmp/cut_$csv" --out "$tmp/rep_$csv"
done
cp -r "$tmp/run" "$tmp/short_row"
awk -F, 'NR == 3 { NF = 3; OFS = "," ; $1 = $1 } { print }' "$tmp/run/requests.csv" > "$tmp/short_row/requests.csv"
bad_input "report on a requests.csv with a short row" "requests.csv: row 3 has 3 fields" \
  "$bin" report "$tmp/short_row" --out "$tmp/rep_short"

# 3. Durations beyond the horizon.
bad_input "think_time 1e300 s" "/workload/think_time: expected a duration a run can reach" \
  "$bin" check "$sc" --set "workload.think_time=1e300 s"
bad_input "nic_latency 1e300 s" "/topology/nic_latency: expected a duration a run can reach" \
  "$bin" check "$sc" --set "topology.nic_latency=1e300 s"
bad_input "workload.duration 2e9 s" "/workload/duration: expected a duration a run can reach" \
  "$bin" check "$sc" --set workload.mode=online --set workload.aps=1 --set "workload.duration=2e9 s"
bad_input "a fault at 1e12 s" "expected a duration a run can reach" \
  "$bin" run "$sc" --fault "snic-down:node=0,at=1e12s" --quiet --out "$tmp/fault_run"
"$bin" check "$sc" --set "workload.think_time=1e9 s" > /dev/null 2>&1 \
  && echo "ok   1e9 s (the horizon itself) is accepted" || { echo "FAIL 1e9 s refused"; fail=1; }

# 4. A folder where a file is expected.
mkdir -p "$tmp/dir.jsonl"
bad_input "a folder as a trace" "trace file is a directory, expected a file" "$bin" trace stats "$tmp/dir.jsonl"
bad_input "a folder as a Mooncake trace" "Mooncake trace file is a directory" \
  "$bin" trace convert --from mooncake "$tmp/dir.jsonl" -o "$tmp/x.jsonl"
bad_input "a folder as a scenario" "is a directory" "$bin" check "$tmp/dir.jsonl"
bad_input "a folder as a run's trace file" "dir.jsonl\" is a directory, expected a file" \
  "$bin" check "$sc" --set workload.source=file --set "workload.file=$tmp/dir.jsonl"
bad_input "a folder as an overlay" "is a directory" "$bin" check "$sc" --overlay "$tmp/dir.jsonl"

# 5. Bytes that are not text on the command line.
bad_input "a stray byte in --fault" "--fault: expected printable UTF-8 text, found the byte 0x90" \
  "$bin" run "$sc" --fault $'snic-down:node=0,at=1\x90s' --out "$tmp/f"
bad_input "a lone byte as --fault" "found the byte 0x90 at character 1" "$bin" run "$sc" --fault $'\x90' --out "$tmp/f"
bad_input "a control byte in --set" "--set: expected printable UTF-8 text, found the byte 0x01" \
  "$bin" check "$sc" --set $'name=a\x01b'
bad_input "a truncated UTF-8 sequence in --vary" "--vary: expected printable UTF-8 text, found the byte 0xC3" \
  "$bin" sweep "$sc" --vary $'workload.agents=1,\xC3' --out "$tmp/v"
bad_input "an overlong UTF-8 form in --fault" "--fault: expected printable UTF-8 text, found the byte 0xC0" \
  "$bin" run "$sc" --fault $'\xC0\xA3' --out "$tmp/f"
bad_input "a UTF-16 surrogate in --set" "found the byte 0xED" "$bin" check "$sc" --set $'name=\xED\xA0\x80'

# 6. Issue 68: exit 2 at load where exit 1 or silence was.
bad_input "a key repeated in --fault" 'repeats the key "at"' "$bin" run "$sc" --fault "snic-down:node=0,at=1s,at=2s" \
  --out "$tmp/f"
bad_input "a degrade factor of 1" "expected a number in (0, 1), found 1" \
  "$bin" run "$sc" --fault "snic-degrade:node=0,factor=1,at=2s" --out "$tmp/f"
bad_input "claims --out onto a file" "--out $tmp/a_file" "$bin" claims --only 1 --out "$tmp/a_file"
bad_input "a key repeated inside a --set JSON value" 'the value duplicate key "enabled" at /enabled' \
  "$bin" check "$sc" --set 'policy.qos={"enabled":true,"enabled":false}'
bad_input "an SLO above a day" "at most a day" \
  "$bin" capacity "$root/scenarios/ds660b-2p4d-online.json" --slo-tpot "1e300 s" --out "$tmp/cap"
bad_input "a trace of more trajectories than a scenario takes" "--trajectories: expected an integer in [1, 10000000]" \
  "$bin" trace gen --profile 64k -n 2000000000 -o "$tmp/big.jsonl"

# 7. Bounded reads: each refusal names the file (and line), and takes about the bound's memory, not the file's.
truncate -s 65M "$tmp/huge.json"   # sparse: NULs, no line break
bad_input "a scenario above 64 MiB" "huge.json: scenario file is larger than 64 MiB" "$bin" check "$tmp/huge.json"
bad_input "an overlay above 64 MiB" "huge.json: overlay file is larger than 64 MiB" "$bin" check "$sc" --overlay "$tmp/huge.json"
bad_input "a trace line above 64 MiB" "huge.json:1: a line longer than 64 MiB" "$bin" trace stats "$tmp/huge.json"
bad_input "a Mooncake line above 64 MiB" "huge.json:1: a line longer than 64 MiB" \
  "$bin" trace convert --from mooncake "$tmp/huge.json" -o "$tmp/out.jsonl"
bad_input "a CSV line above 64 MiB" "huge.json:1: a line longer than 64 MiB" \
  "$bin" trace stats --from azure "$tmp/huge.json"
if [ -x /usr/bin/time ]; then
  # The start-up's own memory (the libraries) plus about the bound: not the file's size, however large it is.
  truncate -s 3G "$tmp/huge3.json"
  /usr/bin/time -o "$tmp/base.kb" -f "%M" "$bin" --version > /dev/null
  for args in "check $tmp/huge3.json" "trace stats $tmp/huge3.json"; do
    /usr/bin/time -o "$tmp/run.kb" -f "%M" "$bin" $args > /dev/null 2>&1
    kb=$(( $(tail -1 "$tmp/run.kb") - $(tail -1 "$tmp/base.kb") ))
    if [ "$kb" -le $((200 * 1024)) ]; then echo "ok   $args on a 3 GiB file: $kb KB above start-up"
    else echo "FAIL $args on a 3 GiB file takes $kb KB above start-up"; fail=1; fi
  done
  # A light start (issue 68: every invocation took ~246 MB, cuBLAS being linked): the commands without a GPU stay
  # under 100 MB of resident memory (about 36 MB here: SimGrid and its ns-3 libraries).
  for args in "--version" "check $sc" "trace stats $root/tests/traces/burstgpt_sample.csv --from burstgpt"; do
    /usr/bin/time -o "$tmp/run.kb" -f "%M" "$bin" $args > /dev/null 2>&1
    kb=$(tail -1 "$tmp/run.kb")
    if [ "$kb" -le $((100 * 1024)) ]; then echo "ok   dualpath $args starts in $kb KB"
    else echo "FAIL dualpath $args takes $kb KB (over 100 MB)"; fail=1; fi
  done
else
  echo "FAIL /usr/bin/time is missing (apt-get install time)"; fail=1
fi
exit $fail
