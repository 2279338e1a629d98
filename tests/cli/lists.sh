#!/usr/bin/env bash
# One rule for lists and prices on the command line (core/config/command_values.hpp, comma_items; issue 80): an empty
# item (`basic,,dualpath`, a trailing comma), an item given twice and a price option given empty are refused with one
# line naming the option and the item (exit 2), before any work; the Python layer refuses the same values
# (tests/python/test_lists.py).
# Usage: lists.sh <dualpath-binary> <repo-root>
set -u
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$root/tests/cli/bad_input.bash"  # bad_input NAME WANT CMD...: exit 2 with WANT in its output
S="$root/scenarios/default.json"
fail=0
bad_input policy_empty_item "--policy basic,,dualpath: expected comma-separated names, found an empty one" \
  "$bin" run "$S" --policy basic,,dualpath --out "$tmp/r1"
bad_input policy_trailing_comma "found an empty one" "$bin" run "$S" --policy basic, --out "$tmp/r2"
bad_input policy_twice '--policy basic,basic: names "basic" twice' "$bin" run "$S" --policy basic,basic --out "$tmp/r3"
bad_input capacity_policy_twice 'names "dualpath" twice' "$bin" capacity "$S" --policy dualpath,dualpath \
  --set workload.mode=online --set workload.aps=1 --set workload.duration=300s --out "$tmp/c"
bad_input band_twice 'names "ideal" twice' "$bin" run "$S" --band ideal,ideal --out "$tmp/b"
bad_input price_trailing_comma 'found ""' "$bin" plan "$S" --nodes 2 --node-hour-cost hopper-8gpu-80g=98.32, --out "$tmp/p1"
bad_input price_empty "--node-hour-cost: expected a price or TOPOLOGY=PRICE,..., found an empty one" \
  "$bin" plan "$S" --nodes 2 --node-hour-cost "" --out "$tmp/p2"
bad_input gpu_price_empty "--gpu-hour-cost: expected a price" "$bin" plan "$S" --nodes 2 --gpu-hour-cost "" --out "$tmp/p3"
for d in r1 r2 r3 c b p1 p2 p3; do
  if [ -e "$tmp/$d" ]; then echo "FAIL $d: a refused command made its folder"; fail=1; fi
done
[ "$fail" -eq 0 ] && echo "lists: all cases passed"
exit $fail
