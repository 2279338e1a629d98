#!/usr/bin/env bash
# The study of docs/baselines.md: DualPath against the storage-read paths vLLM and SGLang ship (de-prefetch,
# pe-pull-from-de, GPUDirect Storage, layer groups and a minimum length for layerwise loading), with Basic and Oracle,
# on DS 660B 2P4D, DS 27B 1P1D and Qwen 32B 1P2D offline (JCT), the first two online (capacity within the SLO).
#   bench/baselines.sh [BIN] [OUT]   (OUT defaults to results/baselines; about 25 minutes on 2 cores, release build)
# Prints each run's table as the docs quote it. The offline tables are also checked by the docs test (they are quoted
# with "(prints the lines below)"); the capacity searches run there shrunk, so their figures are reproduced here.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
out="${2:-$root/results/baselines}"
[ -x "$bin" ] || { echo "baselines: no dualpath binary at $bin (build the release preset first)" >&2; exit 2; }
mkdir -p "$out"
cd "$root"
policies=basic,dualpath,oracle,de-prefetch,pe-pull-from-de
table() { grep -v -e '^running ' -e '^  .* done (' -e '^KV hit rate' "$1"; }

for sc in ds660b-2p4d ds27b-1p1d qwen32b-1p2d; do
  echo "== offline: $sc, every policy"
  "$bin" run "scenarios/$sc.json" --policy "$policies" --out "$out/$sc" > "$out/$sc.txt" 2>&1
  table "$out/$sc.txt"
  echo "== offline: $sc, the variants"
  n=0
  while read -r label args; do
    n=$((n + 1))
    # shellcheck disable=SC2086  # the variant's arguments, split on purpose
    "$bin" run "scenarios/$sc.json" $args --out "$out/$sc-variant-$n" 2>&1 | sed -n 2p | sed "s/^/$label: /"
  done <<'VARIANTS'
min-2048 --policy dualpath --set policy.layerwise_min_tokens=2048
group-4 --policy dualpath --set sim.layer_group=4
basic-gdr --policy basic --set topology.storage.gdr=true
dualpath-gdr --policy dualpath --set topology.storage.gdr=true
prefetch-lw-sched --policy de-prefetch --set policy.layerwise=true --set policy.scheduler=true
pull-60s --policy pe-pull-from-de --set policy.de_retention=60s
VARIANTS
done

echo "== online: DS 27B 1P1D capacity"
"$bin" capacity scenarios/ds27b-1p1d.json --set workload.mode=online --set workload.aps=1 \
  --set workload.duration=7200s --policy "$policies" --out "$out/capacity-ds27b" --jobs 2 --no-plot 2>/dev/null
echo "== online: DS 660B 2P4D capacity"
"$bin" capacity scenarios/ds660b-2p4d-online.json --set workload.aps=0.45 --set workload.duration=7200s \
  --resolution 0.05 --policy "$policies" --out "$out/capacity-ds660b" --jobs 2 --no-plot 2>/dev/null
echo "== online: each knob's capacity (one job each)"
for sc in ds27b ds660b; do
  if [ "$sc" = ds27b ]; then args=(scenarios/ds27b-1p1d.json --set workload.mode=online --set workload.aps=1)
  else args=(scenarios/ds660b-2p4d-online.json --set workload.aps=0.45 --resolution 0.05); fi
  "$bin" capacity "${args[@]}" --set workload.duration=7200s --policy dualpath --set policy.layerwise_min_tokens=2048 \
    --out "$out/capacity-$sc-min-2048" --jobs 1 --no-plot 2>/dev/null
  "$bin" capacity "${args[@]}" --set workload.duration=7200s --policy basic,dualpath --set topology.storage.gdr=true \
    --out "$out/capacity-$sc-gdr" --jobs 1 --no-plot 2>/dev/null
done
