#!/usr/bin/env bash
# One-shot GPU check for the hardware backend (docs/hw.md "GPU"), about 5 minutes on one NVIDIA H200:
#   1. fails at once, with the reason, when there is no NVIDIA driver or no GPU;
#   2. configures and builds a release with CUDA (only dualpath and dualpath_gpu_check);
#   3. calibrates the GPU (pinned H2D/D2H, per-layer cuBLAS kernel times vs the cost model; a table), then the
#      whole machine (`hw calibrate --compute cuda`: storage, paced SNIC, transport, GPU) into one overlay;
#   4. runs the scenario on the hardware backend with real kernels (`hw run --compute cuda`, in one process and
#      under MPI) and in the simulator with the overlay (`run --overlay`), and compares them (`dualpath validate`).
# Usage: hw/gpu-check.sh [SCENARIO]   (default hw/scenarios/tiny-1p1d.json; BUILD=dir, OUT=dir override the paths,
#        SNIC="200 MB/s" the emulated SNIC rate)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCENARIO=${1:-$ROOT/hw/scenarios/tiny-1p1d.json}
BUILD=${BUILD:-$ROOT/build-gpu-check}
OUT=${OUT:-$ROOT/results/gpu-check}
SNIC=${SNIC:-200 MB/s}  # the emulated SNIC of each node (the tiny scenario's topology.snic_bw)
fail() { echo "gpu-check: FAILED: $*" >&2; exit 1; }
step() { echo; echo "== $* ($(date +%H:%M:%S))"; }

# 1. A GPU, or a quick clear failure.
command -v nvidia-smi >/dev/null 2>&1 || fail "nvidia-smi not found: no NVIDIA driver on this machine, so no GPU to check"
if ! GPUS=$(timeout 60 nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>&1); then
  fail "nvidia-smi failed: $GPUS"
fi
[ -n "$GPUS" ] || fail "nvidia-smi lists no GPU"
echo "GPU(s):"; echo "$GPUS" | sed 's/^/  /'

# 2. Build with CUDA (the toolkit in /usr/local/cuda unless CUDAToolkit_ROOT says otherwise).
step "build ($BUILD)"
CUDA_ARGS=()
if [ -z "${CUDAToolkit_ROOT:-}" ] && [ -d /usr/local/cuda ]; then CUDA_ARGS+=(-DCUDAToolkit_ROOT=/usr/local/cuda); fi
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDUALPATH_WITH_CUDA=ON -DDUALPATH_BUILD_HW=ON \
  -DDUALPATH_BUILD_TESTS=OFF -DDUALPATH_BUILD_BENCH=OFF "${CUDA_ARGS[@]}" >"$BUILD.configure.log" 2>&1 ||
  { tail -30 "$BUILD.configure.log"; fail "cmake configure (log: $BUILD.configure.log)"; }
grep "dualpath:" "$BUILD.configure.log" || true
cmake --build "$BUILD" -j16 --target dualpath dualpath-hw dualpath_gpu_check >"$BUILD.build.log" 2>&1 ||
  { tail -40 "$BUILD.build.log"; fail "build (log: $BUILD.build.log)"; }
DP=$BUILD/cli/dualpath
CHECK=$BUILD/hw/dualpath_gpu_check
mkdir -p "$OUT"
rm -rf "$OUT/hw" "$OUT/sim"

# 3. Calibration: a table on stdout, the raw JSON and the overlay in $OUT.
step "GPU calibration"
timeout 240 "$CHECK" "$SCENARIO" --quick --out "$OUT/gpu-calibration.json" --overlay "$OUT/gpu-overlay.json" ||
  fail "dualpath_gpu_check (exit $?); see above"

# The machine's whole overlay (storage, the paced SNIC at the scenario's rate, transport, GPU) for the simulator.
step "hw calibrate (storage, SNIC at $SNIC, transport, GPU)"
timeout 240 "$DP" hw calibrate --scenario "$SCENARIO" --snic-rate "$SNIC" --compute cuda --blocks 64 \
  --out "$OUT/overlay.json" || fail "dualpath hw calibrate --compute cuda (exit $?)"

# 4. The same scenario measured with real kernels (PE and DE share the GPU), and simulated with the overlay.
step "hw run --compute cuda (one process)"
timeout 240 "$DP" hw run "$SCENARIO" --snic-rate "$SNIC" --compute cuda --out "$OUT/hw" ||
  fail "dualpath hw run --compute cuda (exit $?)"
step "hw run --compute cuda --launch mpi (a process per node, both on this GPU)"
timeout 240 "$DP" hw run "$SCENARIO" --snic-rate "$SNIC" --compute cuda --launch mpi --out "$OUT/hw-mpi" ||
  echo "gpu-check: the MPI run failed (exit $?); continuing with the one-process run"
step "simulator run --overlay"
timeout 120 "$DP" run "$SCENARIO" --overlay "$OUT/overlay.json" --out "$OUT/sim" --quiet ||
  fail "dualpath run --overlay (exit $?)"

step "measured (hw, real kernels) vs simulated (calibrated)"
if "$DP" validate --help >/dev/null 2>&1; then
  "$DP" validate "$OUT/sim" "$OUT/hw" || fail "dualpath validate reported errors beyond tolerance"
else
  echo "(dualpath validate not available; comparing summary.json files)"
  python3 - "$OUT/sim" "$OUT/hw" <<'PYEOF'
import glob, json, os, sys
def summary(d):
    files = sorted(glob.glob(os.path.join(d, "**", "summary.json"), recursive=True))
    if not files: sys.exit(f"gpu-check: no summary.json under {d}")
    with open(files[0]) as f: return files[0], json.load(f)
sim_file, sim = summary(sys.argv[1]); hw_file, hw = summary(sys.argv[2])
print(f"simulated: {sim_file}\nmeasured:  {hw_file}  (compute: {hw.get('compute', '?')})")
rows = [("JCT s", ["jct_s"]), ("TTFT p50 s", ["ttft_s", "p50"]), ("TTFT p90 s", ["ttft_s", "p90"]),
        ("TPOT p50 s", ["tpot_s", "p50"]), ("TPOT p90 s", ["tpot_s", "p90"])]
def get(s, path):
    v = s.get("results", {})
    for k in path: v = v.get(k) if isinstance(v, dict) else None
    return v
print(f"{'metric':<12} {'measured':>12} {'simulated':>12} {'sim/meas-1':>11}")
for name, path in rows:
    m, s = get(hw, path), get(sim, path)
    err = f"{(s / m - 1) * 100:+10.1f}%" if isinstance(m, (int, float)) and isinstance(s, (int, float)) and m else "         -"
    fmt = lambda x: f"{x:12.4f}" if isinstance(x, (int, float)) else f"{'-':>12}"
    print(f"{name:<12} {fmt(m)} {fmt(s)} {err}")
if not hw.get("complete", False): sys.exit("gpu-check: the hw run did not complete")
PYEOF
fi
echo; echo "gpu-check: OK (outputs in $OUT)"
