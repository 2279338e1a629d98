#!/usr/bin/env bash
# The figures a calibration is fitted to and checked against (docs/calibration.md), under one calibration:
#   Fig. 3-right (analyze cost --public), DS 660B 2P4D online at 0.1 / 0.4 / 0.45 APS (TPOT p50, TTST gap p50, TTFT
#   mean, the working set lambda*T*L/2), offline at 2,048 agents (Basic / DualPath / Oracle) and the ablation at
#   1,024 agents; with --full also 44P88D at 8.8 APS (about 3-6 min and 1.6 GB) and both online capacity searches
#   (DS 660B 2P4D and DS 27B 1P1D on 7,200-s probes: tens of minutes).
# Usage: bench/calibration_figures.sh <dualpath-binary> <calibration> [--full]     (prints one table; runs in a temp dir)
set -euo pipefail
BIN=$(realpath "$1"); CAL="$2"; FULL="${3:-}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
S6="$ROOT/scenarios/ds660b-2p4d.json"; S6o="$ROOT/scenarios/ds660b-2p4d-online.json"; S27="$ROOT/scenarios/ds27b-1p1d.json"
C=(--calibration "$CAL")
echo "calibration $CAL"
"$BIN" analyze cost --model "$ROOT/models/deepseek-v3.2-660b.json" --topology "$ROOT/topologies/hopper-8gpu-80g.json" \
  --public --json "${C[@]}" | "$py" -c "
import json, sys
for p in json.load(sys.stdin)['public_points']:
    if p['id'].startswith('paper_fig3'):
        print(f\"  {p['id']}: {p['model']:.2f} vs {p['measured']} ({100 * (p['model'] / p['measured'] - 1):+.1f}%)\")"
online() {  # APS, folder, extra --set...
  local aps="$1" out="$2"; shift 2
  "$BIN" run "$S6o" --quiet "${C[@]}" --set workload.aps="$aps" --set "workload.duration=${DURATION:-2400 s}" "$@" --out "$out"
  "$py" - "$out/summary.json" "$aps" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); r = s['results']; w = s['working_set']
print(f"  online {sys.argv[2]} APS: TPOT p50 {r['tpot_s']['p50'] * 1e3:.1f} ms, TTST gap p50 {r['second_token_gap_s']['p50']:.3f} s, "
      f"TTFT mean {r['ttft_s']['mean']:.2f} s, T {w['mean_lifetime_s']:.0f} s, working set {w['law_bytes'] / 1e9:.1f} GB")
PY
}
for aps in 0.1 0.4 0.45; do online "$aps" "$tmp/on-$aps"; done
jct() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['results']['jct_s'])" "$1/summary.json"; }
"$BIN" run "$S6" --quiet "${C[@]}" --policy basic,dualpath,oracle --out "$tmp/off" > /dev/null
b=$(jct "$tmp/off/basic"); d=$(jct "$tmp/off/dualpath"); o=$(jct "$tmp/off/oracle")
"$py" -c "import sys; b, d, o = map(float, sys.argv[1:]); print(f'  offline 2,048 agents: JCT Basic {b:.0f} / DualPath {d:.0f} / Oracle {o:.0f} s; DualPath/Basic {b / d:.2f}x')" "$b" "$d" "$o"
A=(--quiet "${C[@]}" --set workload.agents=1024)
"$BIN" run "$S6" "${A[@]}" --set policy.name=basic --out "$tmp/a0"
"$BIN" run "$S6" "${A[@]}" --set policy.name=basic --set policy.layerwise=true --out "$tmp/a1"
"$BIN" run "$S6" "${A[@]}" --set policy.name=basic --set policy.layerwise=true --set policy.dual_path=true --out "$tmp/a2"
"$BIN" run "$S6" "${A[@]}" --set policy.name=dualpath --out "$tmp/a3"
"$BIN" run "$S6" "${A[@]}" --set policy.name=oracle --out "$tmp/a4"
"$py" -c "
import sys
j = [float(x) for x in sys.argv[1:]]
steps = ', '.join(f'{100 * (j[i] / j[i - 1] - 1):+.1f}%' for i in (1, 2, 3))
print(f'  ablation 1,024 agents: Basic {j[0]:.0f} -> +layerwise {j[1]:.0f} -> +dual path {j[2]:.0f} -> DualPath {j[3]:.0f} s ({steps}); Oracle {j[4]:.0f} s')
" "$(jct "$tmp/a0")" "$(jct "$tmp/a1")" "$(jct "$tmp/a2")" "$(jct "$tmp/a3")" "$(jct "$tmp/a4")"
[ "$FULL" = --full ] || exit 0
DURATION="1800 s" online 8.8 "$tmp/on-44p88d" --set deployment.prefill_nodes=44 --set deployment.decode_nodes=88
cap() {  # label, scenario, args...
  local label="$1" sc="$2"; shift 2
  "$BIN" capacity "$sc" "${C[@]}" "$@" --jobs 2 --no-plot --out "$tmp/cap-$label" > /dev/null 2>&1
  "$py" - "$tmp/cap-$label/capacity.json" "$label" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))['policies']
b, d = p['basic']['capacity_aps'], p['dualpath']['capacity_aps']
print(f"  capacity {sys.argv[2]}: Basic {b:.3f} / DualPath {d:.3f} APS ({d / b:.2f}x); binds {p['basic'].get('binds_at_capacity')} / {p['dualpath'].get('binds_at_capacity')}")
PY
}
cap ds660b-2p4d "$S6o" --set workload.aps=0.3 --set workload.duration=7200s --resolution 0.05
cap ds27b-1p1d "$S27" --set workload.mode=online --set workload.aps=0.5 --set workload.duration=7200s
