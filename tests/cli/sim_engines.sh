#!/usr/bin/env bash
# The native network engine (sim.engine = native) must give the SimGrid engine's results: every headline metric
# (JCT, TTFT p50/p99, TPOT p50, rounds) and every link class's mean utilisation per traffic class within 1e-6
# relative, on the default scenario (one node pair) and on DS 660B 2P4D (cross-node EP collectives, the DE read
# path, QoS), for Basic and DualPath. The two engines solve the same weighted max-min over the same fabric, so
# any larger gap is a bug in one of them (docs/performance.md, "Native network engine").
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3

compare() {  # name scenario extra-args...
  local name=$1 scen=$2; shift 2
  "$bin" run "$root/scenarios/$scen" --quiet --out "$tmp/$name-simgrid" --set sim.engine=simgrid "$@"
  "$bin" run "$root/scenarios/$scen" --quiet --out "$tmp/$name-native" --set sim.engine=native "$@"
  "$py" - "$root" "$name" "$tmp/$name-simgrid" "$tmp/$name-native" <<'PY'
import sys
root, name, a_dir, b_dir = sys.argv[1:]
sys.path.insert(0, f"{root}/bench"); sys.dont_write_bytecode = True
from headline_metrics import metrics
a, b = metrics(a_dir), metrics(b_dir)
bad = 0
if set(a) != set(b):
    print(f"FAIL {name}: different metrics {sorted(set(a) ^ set(b))}")
    sys.exit(1)
for k in sorted(a):
    err = abs(a[k] - b[k]) / max(abs(a[k]), 1e-12)
    ok = err <= 1e-6
    bad |= not ok
    if not ok or k in ("jct_s", "ttft_p99", "tpot_p50"):
        print(f"{'ok  ' if ok else 'FAIL'} {name} {k}: simgrid {a[k]:.9g} native {b[k]:.9g} (rel {err:.1e}, <= 1e-6)")
sys.exit(bad)
PY
}
compare default-dualpath default.json --set workload.agents=48 --policy dualpath
compare ds660b-dualpath ds660b-2p4d.json --set workload.agents=48 --set workload.trajectories=48 --policy dualpath
compare ds660b-basic ds660b-2p4d.json --set workload.agents=48 --set workload.trajectories=48 --policy basic
