#!/usr/bin/env bash
# Behaviour-preserving changes (refactors, exact speed-ups): runs every bundled scenario under every main policy
# and the claims suite with two builds of dualpath and checks that every output file is byte-identical, except
# perf.json (wall time) and lines that print wall time.
#   scripts/same_outputs.sh OLD_BIN NEW_BIN [WORKDIR]
# OLD_BIN is a build of the commit before the change (e.g. git worktree add /tmp/old <commit> and build there).
# With REUSE_OLD=1 and WORKDIR/old from an earlier call, the old outputs are not made again. SCENARIOS (file names
# under scenarios/, default all), POLICIES (default "basic dualpath oracle") and CLAIMS=0 (skip the claims suite)
# narrow the comparison.
# Exit 0 when all outputs match, 1 with the first differing files listed otherwise.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
old="${1:?usage: $0 OLD_BIN NEW_BIN [WORKDIR]}"
new="${2:?usage: $0 OLD_BIN NEW_BIN [WORKDIR]}"
work="${3:-$(mktemp -d)}"
mkdir -p "$work"

run_all() {  # bin tag
  local bin=$1 tag=$2
  local scens=() s
  if [ -n "${SCENARIOS:-}" ]; then for s in $SCENARIOS; do scens+=("$root/scenarios/$s"); done
  else scens=("$root"/scenarios/*.json); fi
  for scen in "${scens[@]}"; do
    local name; name=$(basename "$scen" .json)
    case "$name" in schema | overlay.schema) continue ;; esac
    for policy in ${POLICIES:-basic dualpath oracle}; do
      "$bin" run "$scen" --quiet --policy "$policy" --out "$work/$tag/$name-$policy"
    done
  done
  [ "${CLAIMS:-1}" = 0 ] || "$bin" claims --out "$work/$tag/claims" --jobs 1 > "$work/$tag/claims.txt"
}

[ "${REUSE_OLD:-0}" = 1 ] && [ -d "$work/old" ] || { rm -rf "$work/old"; run_all "$old" old; }
rm -rf "$work/new"
run_all "$new" new
bad=0
while IFS= read -r f; do
  rel=${f#"$work/old/"}
  case "$rel" in */perf.json) continue ;; esac
  if [ ! -f "$work/new/$rel" ]; then echo "missing in new: $rel"; bad=1; continue; fi
  if ! cmp -s "$f" "$work/new/$rel"; then
    # claims.txt prints wall times: compare it without them
    if [ "$rel" = claims.txt ] && diff -q <(sed -E 's/[0-9.]+ s wall//g' "$f") \
        <(sed -E 's/[0-9.]+ s wall//g' "$work/new/$rel") > /dev/null; then continue; fi
    echo "differs: $rel"; bad=1
  fi
done < <(find "$work/old" -type f | sort)
extra=$(cd "$work/new" && find . -type f | sed 's|^\./||' | while read -r r; do [ -f "$work/old/$r" ] || echo "$r"; done)
if [ -n "$extra" ]; then echo "only in new: $extra"; bad=1; fi
[ "$bad" = 0 ] && echo "same outputs: $(find "$work/old" -type f | wc -l) files compared in $work"
exit "$bad"
