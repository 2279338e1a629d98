#!/usr/bin/env bash
# Behaviour-preserving changes (refactors, exact speed-ups): runs every bundled scenario under every main policy
# and the claims suite with two builds of dualpath and checks that every output file is byte-identical, except
# perf.json (wall time) and lines that print wall time.
#   scripts/same_outputs.sh OLD_BIN NEW_BIN [WORKDIR]
# OLD_BIN is a build of the commit before the change (e.g. git worktree add /tmp/old <commit> and build there).
# With REUSE_OLD=1 and WORKDIR/old from an earlier call, the old outputs are not made again. SCENARIOS (file names
# under scenarios/, default all), POLICIES (default "basic dualpath oracle") and CLAIMS=0 (skip the claims suite)
# narrow the comparison. FAULTS=1 adds runs with faults (DS 27B, 64 agents; each fault case of FAULT_CASES below
# under FAULT_POLICIES), their stdout, stderr and exit code included, and the error of each bad fault in BAD_FAULTS.
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
  [ "${FAULTS:-0}" = 0 ] || run_faults "$bin" "$tag"
}

# name|overrides and faults: a node lost (a DE node, a PE node, one with HBM allocated at handoff), a GPU's CNIC
# lost, SNICs down and slowed (with reserved buffers), and the storage cluster slowed. At 20.37 s node 0 has reads in
# flight (the fault fails them) and forwards on its prefill engines (their rounds restart).
FAULT_CASES=(
  "de-node-down|--set deployment.decode_nodes=2 --fault node-down:node=2,at=20s"
  "pe-node-down|--set deployment.prefill_nodes=2 --fault node-down:node=0,at=20.37s"
  "node-down-handoff|--set deployment.decode_nodes=2 --set policy.de_hbm=handoff --fault node-down:node=2,at=20s"
  "cnic-down|--set deployment.decode_nodes=2 --set deployment.de_group_gpus=4 --fault cnic-down:node=2,gpu=3,at=20s"
  "pe-snic-down-reserve|--set policy.buffer=reserve --fault snic-down:node=0,at=20.37s,until=60s"
  "pe-snic-down-forever|--fault snic-down:node=0,at=20.37s"
  "de-snic-down|--fault snic-down:node=1,at=20s,until=60s"
  "snic-degrade-reserve|--set policy.buffer=reserve --fault snic-degrade:node=1,at=10s,until=50s,factor=0.3"
  "storage-degrade|--fault storage-degrade:at=10s,until=40s,factor=0.5"
)
BAD_FAULTS=("node-down:node=9,at=1s" "node-down:node=0,at=5s,until=9s" "cnic-down:node=1,at=2s"
            "snic-degrade:node=0,at=1s" "snic-down:node=0,at=5s,until=2s" "storage-degrade:at=1s,factor=2"
            "disk-down:node=0,at=1s" "snic-down:at=1s")
run_faults() {  # bin tag
  local bin=$1 tag=$2 case name args policy out rc i
  for case in "${FAULT_CASES[@]}"; do
    name=${case%%|*} args=${case#*|}
    for policy in ${FAULT_POLICIES:-oracle dualpath basic dualpath-split dram-pool}; do
      out="$work/$tag/faults/$name-$policy"
      mkdir -p "$out"
      # shellcheck disable=SC2086  # args are words
      rc=0; "$bin" run "$root/scenarios/ds27b-1p1d.json" --set workload.agents=64 --policy "$policy" $args \
        --out "$out/run" > "$out/stdout" 2> "$out/stderr" || rc=$?
      echo "$rc" > "$out/exit"
      sed -i -E -e 's/[0-9.]+ s wall//g' -e "s|$work/$tag/|WORK/|g" "$out/stdout" "$out/stderr"
    done
  done
  i=0
  for f in "${BAD_FAULTS[@]}"; do
    out="$work/$tag/faults/bad-$i"; i=$((i + 1))
    mkdir -p "$out"
    rc=0; "$bin" run "$root/scenarios/ds27b-1p1d.json" --quiet --out "$out/run" --fault "$f" 2> "$out/stderr" || rc=$?
    echo "$rc" > "$out/exit"
    sed -i -e "s|$work/$tag/|WORK/|g" "$out/stderr"
  done
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
    # The claims' scenarios are the bundled ones of each binary's own tree (its compiled-in data folder), so
    # summary.json's config.source_file names two checkouts: compare the rest
    if [[ "$rel" == claims/*/summary.json ]] && diff -q <(grep -v '"source_file":' "$f") \
        <(grep -v '"source_file":' "$work/new/$rel") > /dev/null; then continue; fi
    echo "differs: $rel"; bad=1
  fi
done < <(find "$work/old" -type f | sort)
extra=$(cd "$work/new" && find . -type f | sed 's|^\./||' | while read -r r; do [ -f "$work/old/$r" ] || echo "$r"; done)
if [ -n "$extra" ]; then echo "only in new: $extra"; bad=1; fi
[ "$bad" = 0 ] && echo "same outputs: $(find "$work/old" -type f | wc -l) files compared in $work"
exit "$bad"
