#!/usr/bin/env bash
# The progress line of `dualpath run`: shown on stderr when it is a terminal (run under script(1)), absent with
# --quiet and when stderr is not a terminal, and the results are byte-identical either way.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v script >/dev/null || { echo "SKIP: script(1) not installed"; exit 77; }

# Long enough (a few wall seconds in the dev build) that the line, printed at most every 0.5 s, shows at least once
# even on a fast machine: the default 128 agents finish in about 0.5 s.
run="$bin run $root/scenarios/default.json --policy dualpath --set workload.agents=512"
script -qec "$run --out $tmp/tty" "$tmp/tty.log" > /dev/null
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rounds_total"])' "$tmp/tty/summary.json")
grep -aq "rounds [0-9]*/$total " "$tmp/tty.log" || { echo "FAIL no progress line on a terminal (of $total rounds)"; cat -v "$tmp/tty.log" | head; exit 1; }
grep -aq "ETA" "$tmp/tty.log" || { echo "FAIL progress line without ETA"; exit 1; }
echo "ok   progress line on a terminal: $(grep -ao 'sim [^|]*| rounds [^|]*' "$tmp/tty.log" | tail -1)"
script -qec "$run --quiet --out $tmp/quiet" "$tmp/quiet.log" > /dev/null
if grep -aq "rounds " "$tmp/quiet.log"; then echo "FAIL progress line with --quiet"; exit 1; fi
echo "ok   none with --quiet"
$run --out "$tmp/pipe" 2> "$tmp/pipe.err" > /dev/null
if grep -aq "rounds " "$tmp/pipe.err"; then echo "FAIL progress line when stderr is not a terminal"; exit 1; fi
echo "ok   none when stderr is not a terminal"
for f in summary.json requests.csv links.csv; do
  cmp "$tmp/tty/$f" "$tmp/pipe/$f" || { echo "FAIL the progress line changed $f"; exit 1; }
done
echo "ok   results identical with and without the progress line"
