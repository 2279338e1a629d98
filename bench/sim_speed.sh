#!/usr/bin/env bash
# Simulator speed: wall time, peak memory and simulated seconds per wall second for the paper-scale runs.
#   bench/sim_speed.sh [BIN] [small|2p4d|48p96d|all] [REPEATS]
# small : DS 660B 2P4D, 512 agents (a quick proxy)
# 2p4d  : DS 660B 2P4D, 64K, 2048 agents offline (issue 4 target: <= 60 s wall on 2 cores)
# 48p96d: DS 660B 48P96D (1,152 GPUs), 48K agents (target <= 15 min, <= 8 GiB)
# Prints one line per run and the median of the repeats. Run on a quiet machine (the figures are wall times).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
which="${2:-small}"
repeats="${3:-3}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

run_case() {  # name, extra args...
  local name=$1; shift
  local walls=()
  for i in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" run "$root/scenarios/ds660b-2p4d.json" --quiet --out "$tmp/$name" "$@"
    read -r wall kb < "$tmp/time"
    sim=$(/usr/bin/python3 -c "import json; print(json.load(open('$tmp/$name/perf.json'))['simulated_s'])")
    ev=$(/usr/bin/python3 -c "import json; p=json.load(open('$tmp/$name/perf.json')); print(p['transfers'])")
    printf '%-8s run %d: wall %8.1f s  peak %7.0f MiB  simulated %8.1f s  (%6.1f sim-s per wall-s, %d transfers)\n' \
      "$name" "$i" "$wall" "$((kb / 1024))" "$sim" "$(echo "$sim / $wall" | bc -l)" "$ev"
    walls+=("$wall")
  done
  printf '%-8s median wall %s s over %d runs\n' "$name" \
    "$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" "$repeats"
}

case "$which" in
  small) run_case small --set workload.agents=512 ;;
  2p4d) run_case 2p4d ;;
  48p96d) run_case 48p96d --set deployment.prefill_nodes=48 --set deployment.decode_nodes=96 --set workload.agents=49152 ;;
  all) run_case small --set workload.agents=512; run_case 2p4d
       run_case 48p96d --set deployment.prefill_nodes=48 --set deployment.decode_nodes=96 --set workload.agents=49152 ;;
  *) echo "usage: $0 [BIN] [small|2p4d|48p96d|all] [REPEATS]" >&2; exit 2 ;;
esac
