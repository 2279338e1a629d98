#!/usr/bin/env bash
# The fidelity knobs' defaults (sim.layer_group = 0: 8 stages per forward; sim.decode_chunk_steps = 4) must stay
# within 2% JCT of the exact settings (per-layer streaming; every decode step simulated), on a 30-layer model
# without cross-node collectives (default scenario) and on DS 660B 2P4D (61 layers, EP16/EP32 across nodes).
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3

jct() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['results']['jct_s'])" "$1/summary.json"; }
check() {  # name scenario extra-args...
  local name=$1 scen=$2; shift 2
  "$bin" run "$root/scenarios/$scen" --quiet --out "$tmp/$name-auto" "$@"
  "$bin" run "$root/scenarios/$scen" --quiet --out "$tmp/$name-layer" --set sim.layer_group=1 "$@"
  "$bin" run "$root/scenarios/$scen" --quiet --out "$tmp/$name-step" --set sim.decode_chunk_steps=1 "$@"
  "$py" - "$name" "$(jct "$tmp/$name-auto")" "$(jct "$tmp/$name-layer")" "$(jct "$tmp/$name-step")" <<'PY'
import sys
name, auto, layer, step = sys.argv[1], *map(float, sys.argv[2:])
bad = 0
for label, exact in (("per-layer streaming", layer), ("per-step decode", step)):
    err = abs(auto - exact) / exact
    ok = err <= 0.02
    bad |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: default JCT {auto:.2f} s vs {label} {exact:.2f} s: {100*err:.2f}% (<= 2%)")
sys.exit(bad)
PY
}
check default default.json --set workload.agents=48
check ds660b ds660b-2p4d.json --set workload.agents=48 --set workload.trajectories=48
