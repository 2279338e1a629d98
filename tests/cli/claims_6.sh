#!/usr/bin/env bash
# Claim 6 (docs/claims.md): outside the range (4P1D, 8P1D) the split-read policy reads >= 95% of the §4.2 LP's
# read-rate cap and reads each hit byte once. The same check as `dualpath claims --only 6`.
# In a build with mutation hooks (the dev preset), it also shows the claim failing for a broken split whose halves
# each read the whole hit (mutant split_reads_whole): exit 1, both checks failing.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 6 --scenarios "$root/scenarios/claims" --out "$tmp/ok"
cache="$(dirname "$(dirname "$bin")")/CMakeCache.txt"
if grep -q "DUALPATH_MUTATION:BOOL=ON" "$cache" 2>/dev/null; then
  rc=0
  DUALPATH_MUTANT=split_reads_whole "$bin" claims --only 6 --scenarios "$root/scenarios/claims" --out "$tmp/broken" \
    > "$tmp/broken.txt" 2>&1 || rc=$?
  cat "$tmp/broken.txt"
  [ "$rc" -eq 1 ] || { echo "FAIL: a split reading the whole hit twice passed claim 6 (exit $rc)"; exit 1; }
  [ "$(grep -c 'bytes read / hit KV.*FAIL' "$tmp/broken.txt")" -eq 2 ] || { echo "FAIL: the read-once rows did not fail"; exit 1; }
  echo "ok   a split whose halves each read the whole hit fails claim 6"
fi
