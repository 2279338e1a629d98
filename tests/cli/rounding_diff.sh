#!/usr/bin/env bash
# scripts/rounding_diff.py, the proof a re-blessed exact change needs: it passes folders whose numbers moved by
# rounding only (relative 1e-12, one unit of a 6-digit print, a nanosecond), and fails a number further apart, a
# change in the text between numbers, a line too many and a file on one side only, naming each.
set -euo pipefail
root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
diff_py="$root/scripts/rounding_diff.py"
mkdir -p "$tmp/old/run" "$tmp/new/run"
printf '{\n  "jct_s": 2643.512345678901,\n  "cnic_rd": 0.01493028621771623\n}\n' > "$tmp/old/run/summary.json"
printf '{\n  "jct_s": 2643.512345678901,\n  "cnic_rd": 0.014930286217728858\n}\n' > "$tmp/new/run/summary.json"
printf 'time,link,utilisation\n765,cnic1_rd,0.0131989\n766,cnic1_rd,0.000285414\n' > "$tmp/old/run/links.csv"
printf 'time,link,utilisation\n765,cnic1_rd,0.013199\n766,cnic1_rd,0.000285416\n' > "$tmp/new/run/links.csv"
echo '{"wall_s": 9.1}' > "$tmp/old/run/perf.json"
echo '{"wall_s": 8.7, "x": 1}' > "$tmp/new/run/perf.json"

out=$(python3 "$diff_py" "$tmp/old" "$tmp/new") || { echo "FAIL: rounding-only folders refused: $out"; exit 1; }
grep -q "summary.json: 1 values differ, largest relative difference 8.459e-13" <<< "$out" ||
  { echo "FAIL: the summary's rounding is not measured: $out"; exit 1; }
grep -q "links.csv: 1 values one unit apart in their last printed digit" <<< "$out" ||
  { echo "FAIL: the 6-digit print rounding is not told apart: $out"; exit 1; }
grep -q "largest absolute difference 2.000e-09" <<< "$out" ||
  { echo "FAIL: a nanosecond-sized move is not measured in absolute terms: $out"; exit 1; }

expect_fail() {  # what, pattern, then the edit to the new side
  local what=$1 pattern=$2
  rm -rf "$tmp/bad"; cp -r "$tmp/new" "$tmp/bad"
  eval "$3"
  set +e; out=$(python3 "$diff_py" "$tmp/old" "$tmp/bad"); rc=$?; set -e
  [ "$rc" = 1 ] || { echo "FAIL: $what passed (exit $rc): $out"; exit 1; }
  grep -q -- "$pattern" <<< "$out" || { echo "FAIL: $what not named ($pattern): $out"; exit 1; }
}
expect_fail "a number 1e-6 apart" "summary.json: 2 values differ, largest relative difference 1.004e-06" \
  "sed -i 's/2643.512345678901/2643.515/' '$tmp/bad/run/summary.json'"
expect_fail "a changed key" "summary.json: line 3 differs in more than numbers" \
  "sed -i 's/cnic_rd/cnic_wr/' '$tmp/bad/run/summary.json'"
expect_fail "an extra line" "links.csv: 3 lines against 4" "echo '767,cnic1_rd,0.1' >> '$tmp/bad/run/links.csv'"
expect_fail "a file on one side" "requests.csv: only in NEW" "touch '$tmp/bad/run/requests.csv'"
python3 "$diff_py" "$tmp/old" "$tmp/missing" > /dev/null 2>&1 && { echo "FAIL: a missing folder passed"; exit 1; }
echo "rounding_diff: passes rounding, fails each real difference"
