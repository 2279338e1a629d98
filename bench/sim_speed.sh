#!/usr/bin/env bash
# Simulator speed: wall time, peak memory and simulated seconds per wall second for the paper-scale runs.
#   bench/sim_speed.sh [BIN] [small|2p4d|48p96d|online|ladder|all] [REPEATS]
# small : DS 660B 2P4D, 512 agents (a quick proxy)
# 2p4d  : DS 660B 2P4D, 64K, 2048 agents offline, DualPath, Basic and Oracle (issue 13 target: DualPath <= 30 s)
# 48p96d: DS 660B 48P96D (1,152 GPUs), 49,152 agents offline, whole run (issue 13 target: <= 30 min, <= 8 GiB)
# online: DS 660B 44P88D (1,056 GPUs) online at 8.8 APS for 1,800 simulated s (issue 13 target: <= 30 min)
# ladder: DS 660B DualPath at 2P4D, 6P12D, 12P24D, 24P48D, 48P96D with 1,024 agents per 2P4D unit, each cut at
#         LADDER_SIM_S simulated seconds (default 600; LADDER_MAX_UNITS, default 24, skips larger sizes): wall time
#         and rounds per wall second per size, so the growth of cost with scale shows (linear in rounds is the goal).
# Every run uses the network engine SIM_ENGINE (default native; simgrid for the engine of record).
# SWITCHES=on adds the speed switches (docs/performance.md: "Decode chunks that run past finishes",
# sim.decode_chunk_end = steps with 3-step chunks; "Departures re-fill above their level", sim.departures =
# above-departed; "Arrivals re-fill above their first saturation", sim.arrivals = above-saturation;
# bench/speed_switches.sh); off (default) runs the model of record.
# THREADS=N (default 1) runs the native runs with `--threads N` (from 2, the link meter on a thread of its own beside
# the simulation: sim/meter_feed.hpp; the same outputs), so the wall times of one run on both cores show; the
# SimGrid runs beside them stay on one thread.
# SIMGRID=on (default; off skips it) runs each case once more on SimGrid (sim.engine = simgrid, the engine of
# record) when SIM_ENGINE is native, cut at SIMGRID_LIMIT wall seconds (default 600), and prints its wall time, the
# ratio to the native median and whether the two runs' JCT agree (the native engine is exact: they should, up to
# rounding); a run past the limit prints "> LIMIT s".
# Prints one line per run, the native engine's event census of the last (perf.json's "census") and the median of the
# repeats. Run on a quiet machine (the figures are wall times).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
which="${2:-small}"
repeats="${3:-3}"
engine="${SIM_ENGINE:-native}"
switches=()
case "${SWITCHES:-off}" in
  on) source "$root/bench/speed_switches.sh"; switches=("${speed_switches[@]}") ;;
  off) ;;
  *) echo "SWITCHES must be on or off, not '${SWITCHES}'" >&2; exit 2 ;;
esac
threads="${THREADS:-1}"
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || { echo "THREADS must be a whole number >= 1, not '$threads'" >&2; exit 2; }
simgrid="${SIMGRID:-on}" simgrid_limit="${SIMGRID_LIMIT:-600}"
case "$simgrid" in on | off) ;; *) echo "SIMGRID must be on or off, not '$simgrid'" >&2; exit 2 ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
result() { /usr/bin/python3 -c "import json; print(json.load(open('$1/summary.json'))['results']['$2'])"; }  # folder key
# The event census of a native run's perf.json (docs/performance.md): steps, of which idle, completions, solves and
# the flows they re-solved (mean and most in one solve), per round when a round count is given.
census() {  # folder [rounds]
  /usr/bin/python3 - "$1" "${2:-0}" <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/perf.json"))
c, rounds = p.get("census", {}), int(sys.argv[2])
if not c.get("solves"):
    sys.exit(0)
per = f"; per round {p['solver_steps'] / rounds:.1f} steps, {c['solves'] / rounds:.1f} solves" if rounds else ""
print(f"  census: {p['solver_steps'] / 1e6:.2f} M steps ({c['idle_steps'] / 1e6:.2f} M complete no flow), "
      f"{c['completions'] / 1e6:.2f} M completions, {c['solves'] / 1e6:.2f} M solves re-solving "
      f"{c['resolved_flows'] / c['solves']:.1f} flows each (at most {c['max_resolved']}){per}")
PY
}

# The same run on the engine of record, once, beside a native figure: name, the native run's folder, its median
# wall time, the results key both runs print (jct_s; rounds for runs cut at a time limit), the run's arguments.
simgrid_beside() {
  local name=$1 native=$2 median=$3 key=$4; shift 4
  [ "$simgrid" = on ] && [ "$engine" = native ] || return 0
  local rc=0 wall kb a b
  /usr/bin/time -f "%e %M" -o "$tmp/time" timeout "$simgrid_limit" "$bin" run "$root/scenarios/ds660b-2p4d.json" \
    --quiet --out "$tmp/$name-simgrid" ${switches[@]+"${switches[@]}"} "$@" --set sim.engine=simgrid || rc=$?
  if [ "$rc" = 124 ]; then
    printf '%-8s simgrid: wall > %s s (cut), native median %s s\n' "$name" "$simgrid_limit" "$median"
    return 0
  fi
  [ "$rc" = 0 ] || { echo "$name: the SimGrid run failed (exit $rc)" >&2; exit 1; }
  read -r wall kb < "$tmp/time"
  a=$(result "$native" "$key") b=$(result "$tmp/$name-simgrid" "$key")
  printf '%-8s simgrid: wall %8.1f s  peak %7.0f MiB  %5.1fx the native median; %s %s native, %s simgrid (%s)\n' \
    "$name" "$wall" "$((kb / 1024))" "$(echo "$wall / $median" | bc -l)" "$key" "$a" "$b" \
    "$(/usr/bin/python3 -c "a, b = $a, $b; print('equal' if a == b else f'{(b - a) / a * 100:+.2e}%')")"
}

run_case() {  # name, extra args...
  local name=$1; shift
  local walls=()
  for i in $(seq "$repeats"); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" run "$root/scenarios/ds660b-2p4d.json" --quiet --out "$tmp/$name" \
      --set "sim.engine=$engine" --threads "$threads" ${switches[@]+"${switches[@]}"} "$@"
    read -r wall kb < "$tmp/time"
    sim=$(/usr/bin/python3 -c "import json; print(json.load(open('$tmp/$name/perf.json'))['simulated_s'])")
    ev=$(/usr/bin/python3 -c "import json; p=json.load(open('$tmp/$name/perf.json')); print(p['transfers'])")
    printf '%-8s run %d: wall %8.1f s  peak %7.0f MiB  simulated %8.1f s  (%6.1f sim-s per wall-s, %d transfers)\n' \
      "$name" "$i" "$wall" "$((kb / 1024))" "$sim" "$(echo "$sim / $wall" | bc -l)" "$ev"
    walls+=("$wall")
  done
  census "$tmp/$name"
  local median
  median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-8s median wall %s s over %d runs (--threads %s)\n' "$name" "$median" "$repeats" "$threads"
  simgrid_beside "$name" "$tmp/$name" "$median" jct_s "$@"
}

ladder() {
  local sim_s="${LADDER_SIM_S:-600}" max_units="${LADDER_MAX_UNITS:-24}"
  printf '%-7s %8s %10s %10s %12s %14s\n' size agents "wall (s)" rounds "rounds/wall-s" "sim-s/wall-s"
  for units in 1 3 6 12 24; do
    [ "$units" -le "$max_units" ] || continue
    local p=$((2 * units)) d=$((4 * units)) agents=$((1024 * units)) walls=() out="$tmp/ladder$units"
    for i in $(seq "$repeats"); do
      /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" run "$root/scenarios/ds660b-2p4d.json" --quiet --out "$out" \
        --set policy.name=dualpath --set deployment.prefill_nodes=$p --set deployment.decode_nodes=$d \
        --set workload.agents=$agents --set "sim.time_limit=$sim_s s" --set "sim.engine=$engine" \
        --threads "$threads" ${switches[@]+"${switches[@]}"}
      read -r wall kb < "$tmp/time"
      walls+=("$wall")
    done
    local wall rounds
    wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    rounds=$(result "$out" rounds)
    printf '%-7s %8d %10.1f %10d %12.0f %14.2f\n' "${p}P${d}D" "$agents" "$wall" "$rounds" \
      "$(echo "$rounds / $wall" | bc -l)" "$(echo "$sim_s / $wall" | bc -l)"
    census "$out" "$rounds"
    simgrid_beside "${p}P${d}D" "$out" "$wall" rounds --set policy.name=dualpath --set deployment.prefill_nodes=$p \
      --set deployment.decode_nodes=$d --set workload.agents=$agents --set "sim.time_limit=$sim_s s"
  done
}

case "$which" in
  small) run_case small --set workload.agents=512 --policy dualpath ;;
  2p4d) for p in dualpath basic oracle; do run_case "2p4d-$p" --policy "$p"; done ;;
  48p96d) run_case 48p96d --set deployment.prefill_nodes=48 --set deployment.decode_nodes=96 --set workload.agents=49152 ;;
  online) run_case online --set deployment.prefill_nodes=44 --set deployment.decode_nodes=88 --set workload.mode=online \
            --set workload.aps=8.8 --set "workload.duration=1800 s" --set "sim.time_limit=1800 s" ;;
  ladder) ladder ;;
  all) run_case small --set workload.agents=512
       for p in dualpath basic oracle; do run_case "2p4d-$p" --policy "$p"; done
       run_case 48p96d --set deployment.prefill_nodes=48 --set deployment.decode_nodes=96 --set workload.agents=49152 ;;
  *) echo "usage: $0 [BIN] [small|2p4d|48p96d|online|ladder|all] [REPEATS]" >&2; exit 2 ;;
esac
