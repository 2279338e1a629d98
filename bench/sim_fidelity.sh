#!/usr/bin/env bash
# Issue 13's fidelity guard at full size: the speed switches on against off, on DS 660B 2P4D under DualPath,
# compared as ensembles, because this model is chaotic at the 1% level (moving deployment.fetch_period by 0.02%
# moves TTFT p50 by up to 2.2%; docs/performance.md, "Decode chunks that run past finishes"). A single pair of
# runs cannot tell a switch's bias from that noise; the means of two ensembles can, within their standard error.
#   bench/sim_fidelity.sh [BIN] [AGENTS] [MEMBERS]
# AGENTS : agents of the 2P4D case (default 2048, the bench's size)
# MEMBERS: runs per side (default 8); member k runs with fetch_period = 50 ms + (k - MEMBERS/2) * 10 us
# JOBS   : runs at a time (default: the number of cores)
# ON     : the `run` arguments of the "on" side (default: the switches of `SWITCHES=on bench/sim_speed.sh`,
#          bench/speed_switches.sh), to weigh one switch or setting alone, e.g.
#          ON="--set sim.decode_chunk_end=steps --set sim.decode_chunk_steps=2"
# BOTH   : `run` arguments given to both sides (default none), e.g. BOTH="--set model.ep_bytes_per_token_layer=1B"
#          (1 B instead of 168 KiB per token and layer) to see whether a bias survives without some traffic
# Split into words as a shell splits them (no quotes inside). Prints the arguments of each side, then, per headline
# metric (JCT, TTFT p50/p99, TPOT p50, each link class's mean utilisation per traffic class), the two ensemble
# means, their difference, the standard error of that difference and the spread of each side, and says whether
# the difference is within the guard (1%) or within two standard errors of zero (the model's own noise). Exits
# non-zero only on a failed run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
agents="${2:-2048}"
members="${3:-8}"
jobs="${JOBS:-$(nproc)}"
[[ "$agents" =~ ^[1-9][0-9]*$ ]] || { echo "AGENTS must be a positive integer, not '$agents'" >&2; exit 2; }
[[ "$members" =~ ^[1-9][0-9]*$ && "$members" -ge 2 ]] || { echo "MEMBERS must be an integer >= 2, not '$members'" >&2; exit 2; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
if [ -n "${ON+x}" ]; then read -r -a on_args <<< "$ON"; else source "$root/bench/speed_switches.sh"; on_args=("${speed_switches[@]}"); fi
read -r -a both_args <<< "${BOTH:-}"
[ "${#on_args[@]}" -gt 0 ] || { echo "ON must name the on side's run arguments (unset it for the speed switches)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3

# One line per run: side, member, fetch period in microseconds.
for side in off on; do
  for k in $(seq 0 $((members - 1))); do
    echo "$side $k $((50000 + (k - members / 2) * 10))"
  done
done > "$tmp/runs"

run_one() {  # side member period_us
  local side=$1 k=$2 us=$3 sw=() both=()
  read -r -a both <<< "$BOTH_ARGS"
  if [ "$side" = on ]; then read -r -a sw <<< "$ON_ARGS"; fi
  "$bin" run "$root/scenarios/ds660b-2p4d.json" --quiet --out "$tmp/$side-$k" --policy dualpath \
    --set "workload.agents=$agents" --set "deployment.fetch_period=$us us" ${both[@]+"${both[@]}"} ${sw[@]+"${sw[@]}"}
}
ON_ARGS="${on_args[*]}"; BOTH_ARGS="${both_args[*]-}"
export -f run_one; export bin root tmp agents ON_ARGS BOTH_ARGS
xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ < "$tmp/runs"

"$py" - "$root" "$tmp" "$members" "$agents" "$ON_ARGS" "$BOTH_ARGS" <<'PY'
import math, statistics, sys
root, tmp, members, agents, on_args, both_args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
sys.path.insert(0, f"{root}/bench"); sys.dont_write_bytecode = True
from headline_metrics import metrics
runs = {side: [metrics(f"{tmp}/{side}-{k}") for k in range(members)] for side in ("off", "on")}
print(f"DS 660B 2P4D, {agents} agents, DualPath; {members} runs per side (fetch period 50 ms +- 10 us steps)")
print(f"both sides: {both_args or '(the scenario as it is)'}")
print(f"on side:    {on_args}")
print(f"{'metric':<22} {'mean off':>11} {'mean on':>11} {'diff':>8} {'std err':>8} {'spread off':>10} {'spread on':>10}  verdict")
for k in runs["off"][0]:
    off = [m[k] for m in runs["off"]]; on = [m[k] for m in runs["on"]]
    mo, mn = statistics.mean(off), statistics.mean(on)
    if mo == 0 and mn == 0:
        continue
    scale = max(abs(mo), 1e-12)  # a metric that is 0 only with the switches off still prints (as a huge difference)
    diff = (mn - mo) / scale
    se = math.sqrt(statistics.variance(off) / len(off) + statistics.variance(on) / len(on)) / scale
    spread_off = (max(off) - min(off)) / scale; spread_on = (max(on) - min(on)) / scale
    verdict = "within 1%" if abs(diff) <= 0.01 else "within noise (2 std err)" if abs(diff) <= 2 * se else "BIAS"
    print(f"{k:<22} {mo:11.6g} {mn:11.6g} {100 * diff:+7.2f}% {100 * se:7.2f}% {100 * spread_off:9.2f}% "
          f"{100 * spread_on:9.2f}%  {verdict}")
PY
