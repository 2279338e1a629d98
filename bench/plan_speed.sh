#!/usr/bin/env bash
# The planner's one-command answer (issue 42): wall time of `dualpath plan --objective capacity` for both policies
# (--vary policy.name=basic,dualpath) on the two target questions, with the answer each run gives.
#   bench/plan_speed.sh [BIN] [ds27b|ds660b|target|all] [REPEATS]
# ds27b : DS 27B on 4 nodes, 64K agents arriving for up to 7,200 s, TTFT <= 4 s, resolution 5% (target <= 3 min on 2 cores)
# ds660b: DS 660B on 6 nodes (2P4D-sized), the same workload and SLO (target <= 10 min on 2 cores)
# Every run starts from an empty folder (nothing reused); --jobs is the core count. Prints one line per run (wall
# time, probes run, the recommendation) and the median of the repeats; KEEP=DIR keeps each case's last terminal
# output there (NAME.out, NAME.err). Run on a quiet machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/release/cli/dualpath}"
which="${2:-all}"
repeats="${3:-3}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

run_case() {  # name, scenario, nodes, extra args...
  local name=$1 scenario=$2 nodes=$3; shift 3
  local walls=()
  for i in $(seq "$repeats"); do
    rm -rf "$tmp/$name"
    local t0; t0=$(date +%s.%N)
    "$bin" plan "$root/scenarios/$scenario" --nodes "$nodes" --objective capacity --resolution 0.05 \
      --vary policy.name=basic,dualpath --no-plot --out "$tmp/$name" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    local wall; wall=$(echo "$(date +%s.%N) - $t0" | bc -l)
    walls+=("$wall")
    /usr/bin/python3 - "$tmp/$name/plan.json" "$name" "$i" "$wall" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
r = p["recommendation"]
probes = sum(s.get("probes", 0) for s in p["splits"])
best = {v["label"]: v["best"] for v in p["variants"]}
tie = " TIE with " + ", ".join(r["tied_with"]) if r["tie"] else ""
print(f"{sys.argv[2]:7s} run {sys.argv[3]}: wall {float(sys.argv[4]):6.1f} s  {probes:3d} probes  best per policy "
      + ", ".join(f"{k.split('=')[1]} {b}" for k, b in best.items())
      + f"; recommended {r['variant'].split('=')[1]} {r['split']} at {r['value']:.4g} APS{tie}")
PY
  done
  if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP"; cp "$tmp/$name.out" "$tmp/$name.err" "$KEEP/"; fi
  printf '%-7s median wall over %d run(s): %.1f s\n' "$name" "$repeats" \
    "$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')"
}

# The inverse question (issues 65, 79): the fewest nodes holding 4 APS of DS 27B, per policy (target <= 3 min on 2
# cores), with the probes run and the splits the bounds ruled out.
run_target_case() {
  local name=target walls=()
  for i in $(seq "$repeats"); do
    rm -rf "$tmp/$name"
    local t0; t0=$(date +%s.%N)
    "$bin" plan "$root/scenarios/ds27b-1p1d.json" --target-aps 4 --objective capacity "${online[@]}" \
      --set workload.aps=1 --vary policy.name=basic,dualpath --no-plot --out "$tmp/$name" > "$tmp/$name.out" 2> "$tmp/$name.err"
    local wall; wall=$(echo "$(date +%s.%N) - $t0" | bc -l)
    walls+=("$wall")
    /usr/bin/python3 - "$tmp/$name/plan.json" "$i" "$wall" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
probes = sum(1 for v in p["variants"] for d in v["decided"] for s in d["splits"] if "probe" in s)
ruled = sum(1 for v in p["variants"] for d in v["decided"] for s in d["splits"] if "ruled_out" in s)
answers = ", ".join(f"{v['policy']} {v['nodes']} nodes ({v['largest_failing_nodes']} fail)" for v in p["variants"])
print(f"target  run {sys.argv[2]}: wall {float(sys.argv[3]):6.1f} s  {probes:3d} probes, {ruled} splits ruled out; {answers}")
PY
  done
  printf '%-7s median wall over %d run(s): %.1f s\n' "$name" "$repeats" \
    "$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')"
}

online=(--set workload.mode=online --set workload.duration=7200s)
case "$which" in
  ds27b|all) run_case ds27b ds27b-1p1d.json 4 "${online[@]}" --set workload.aps=1 ;;&
  ds660b|all) run_case ds660b ds660b-2p4d-online.json 6 "${online[@]}" ;;&
  target|all) run_target_case ;;
  ds27b|ds660b) ;;
  *) echo "unknown case '$which' (ds27b, ds660b, target, all)" >&2; exit 2 ;;
esac
