#!/usr/bin/env bash
# Hostile but honest input (issue 15): each case below once hung, crashed, exited 1 with a library's text, printed
# two lines, or was silently accepted. Now every bad input exits 2 with exactly one stderr line that starts with
# "dualpath: error:" and names the option, file or JSON path; a value that cannot let a run progress stops it with
# exit 1 and a line naming the likely keys, within seconds (each case runs under a 60-s timeout).
# Usage: hostile_input.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sc="$root/scenarios/default.json"
fail=0

# expect RC WANT NAME -- CMD...: exit RC, one stderr line, with the prefix and WANT in it.
expect() {
  local rc_want="$1" want="$2" name="$3"; shift 4
  timeout 60 "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
  local lines; lines=$(grep -c '' "$tmp/err")
  local prefix="dualpath: error: "; [ "$rc_want" -eq 1 ] && prefix="dualpath: run stopped: "
  if [ "$rc" -eq "$rc_want" ] && [ "$lines" -eq 1 ] && grep -q "^$prefix" "$tmp/err" && grep -qF -- "$want" "$tmp/err"; then
    echo "ok   $name: exit $rc, $(cut -c1-150 "$tmp/err")"
  else
    echo "FAIL $name: exit $rc (want $rc_want), $lines stderr line(s), want '$want': $(head -c 600 "$tmp/err")"; fail=1
  fi
}
run=("$bin" run "$sc" --set workload.agents=4 --quiet)

# Values that cannot let a run progress: rejected up front, or stopped by the horizon watchdog (both engines).
expect 2 "/deployment/fetch_period: expected a duration >= 1e-06" "fetch period of 1e-300 s" -- \
  "${run[@]}" --set "deployment.fetch_period=1e-300 s" --out "$tmp/r1"
# A duration beyond the 1e9 s horizon can never give a finite run: refused at load, naming the key.
expect 2 "/workload/think_time: expected a duration a run can reach" "think time of 1e300 s" -- \
  "${run[@]}" --set "workload.think_time=1e300 s" --out "$tmp/r2"
expect 2 "/topology/nic_latency: expected a duration a run can reach" "NIC latency of 1e15 s" -- \
  "${run[@]}" --set "topology.nic_latency=1e15 s" --out "$tmp/r3"
# Durations within it that add up past it: the horizon watchdog stops the run (both engines).
for engine in native simgrid; do
  expect 1 "past the 1e+09-s horizon" "$engine: think time of 9e8 s, twice" -- \
    "${run[@]}" --set sim.engine=$engine --set "workload.think_time=9e8 s" --out "$tmp/r2$engine"
  expect 1 "topology.nic_latency" "$engine: NIC latency of 5e8 s" -- \
    "${run[@]}" --set sim.engine=$engine --set "topology.nic_latency=5e8 s" --out "$tmp/r3$engine"
done
# Silent accepts.
expect 2 "workload.append_scale: scales a round of" "append scale of 1e19 (int64 overflow)" -- \
  "${run[@]}" --set workload.append_scale=1e19 --out "$tmp/r4"
expect 2 "--policy basic,,dualpath: expected comma-separated names, found an empty one" "empty policy name" -- \
  "${run[@]}" --policy basic,,dualpath --out "$tmp/r5"
expect 2 "--seed: Value -1 not in range" "negative trace seed" -- "$bin" trace gen --profile 64k --seed -1 -n 2
python3 - "$sc" "$tmp/dup.json" "$tmp/big.json" <<'PY'
import json, os, sys
src, dup, big = sys.argv[1:]
text = open(src).read()
base = os.path.dirname(src)
for k in ("model", "topology"):  # keep the referenced files reachable from the copy's folder
    ref = json.loads(text)[k]
    text = text.replace(f'"{ref}"', json.dumps(os.path.join(base, ref)), 1)
open(dup, "w").write(text.replace('"agents":', '"agents": 3, "agents":', 1))
d = json.loads(text)
open(big, "w").write(json.dumps(d, indent=1).replace(f'"agents": {d["workload"]["agents"]}', '"agents": 1e400'))
PY
expect 2 'duplicate key "agents" at /workload/agents' "duplicate key in a scenario" -- "$bin" check "$tmp/dup.json"
printf '{"id":"a","id":"b","rounds":[[5,1]]}\n' > "$tmp/dup.jsonl"
expect 2 "dup.jsonl:1: " "duplicate key in a trace line" -- "$bin" trace stats "$tmp/dup.jsonl"
expect 2 "number 1e400 is too large" "number overflow in a scenario" -- "$bin" check "$tmp/big.json"
expect 2 "big.json:" "number overflow names the file and line" -- "$bin" check "$tmp/big.json"
expect 2 "do not fit in 30 GB of HBM" "check applies run's weights rule" -- \
  "$bin" check "$root/scenarios/ds660b-2p4d.json" --set "topology.gpu.hbm_bytes=30 GB"
long=$(printf 'n%.0s' $(seq 1 300))
expect 2 "/name: expected a name of at most 100 characters, found 300" "a 300-character scenario name" -- \
  "$bin" check "$sc" --set "name=$long"
ln -s "$tmp/loop-b" "$tmp/loop-a"; ln -s "$tmp/loop-a" "$tmp/loop-b"
expect 2 "loop-a: scenario file cannot be reached (Too many levels of symbolic links)" "a symlink loop" -- \
  "$bin" check "$tmp/loop-a"
# Library text and two-line messages.
touch "$tmp/afile"
expect 2 "--out $tmp/afile: cannot create the output folder" "--out is a file" -- "${run[@]}" --out "$tmp/afile"
expect 2 "--out $tmp/afile/x: cannot create" "--out under a file, several policies" -- \
  "${run[@]}" --policy basic,dualpath --out "$tmp/afile/x"
expect 2 "-o '': expected an output file path" "empty -o" -- "$bin" trace gen --profile 64k -n 2 -o ''
expect 2 "--jobs: Value 0 not in range" "CLI11 range error on one line" -- \
  "$bin" sweep "$sc" --vary policy.name=basic --jobs 0 --out "$tmp/s"
expect 2 "A subcommand is required" "no subcommand" -- "$bin"
# Damaged result folders given to report: one line, no Python traceback.
if /usr/bin/python3 -c "import matplotlib, pandas" 2>/dev/null; then
  "$bin" run "$sc" --set workload.agents=4 --quiet --out "$tmp/rep/r1" || exit 1
  cp -r "$tmp/rep" "$tmp/rep2"
  echo '{}' > "$tmp/rep/r1/summary.json"
  expect 2 "summary.json: expected a run summary" "report on an empty summary" -- "$bin" report "$tmp/rep" --out "$tmp/o1"
  head -c 300 "$tmp/rep2/r1/requests.csv" > "$tmp/cut.csv" && mv "$tmp/cut.csv" "$tmp/rep2/r1/requests.csv"
  expect 2 "requests.csv: the last row does not end with a newline" "report on a truncated requests.csv" -- \
    "$bin" report "$tmp/rep2" --out "$tmp/o2"
fi
exit $fail
