#!/usr/bin/env bash
# Fails when ctest skipped a test that this machine should run (issue 16: a skip must never pass unnoticed in CI).
# Reads a ctest log; every test ctest lists as "(Skipped)" must be allowed here:
#   - the Mooncake tests, only when ../shared/traces (beside the clone) is absent;
#   - the GPU tests that skip because a CUDA device *is* usable (they test the no-GPU fallback), only when
#     nvidia-smi sees a GPU.
# Usage: scripts/check_skips.sh CTEST_LOG
set -u
cd "$(dirname "$0")/.."
log="$1"
skipped=$(awk '/tests did not run:/ {on = 1; next} on && /\(Skipped\)/ {print $3}' "$log")
bad=""
for t in $skipped; do
  case "$t" in
    *ooncake*) [ -d ../shared/traces ] || continue ;;
    *Gpu*|*Cuda*|*gpu*) nvidia-smi -L > /dev/null 2>&1 && continue ;;
  esac
  bad="$bad $t"
done
if [ -n "$bad" ]; then
  echo "check_skips: these tests were skipped although this machine should run them:$bad"
  echo "check_skips: see each test's output (ctest --output-on-failure -R NAME) for why it skipped"
  exit 1
fi
echo "check_skips: no test skipped that this machine should run ($(wc -w <<< "$skipped") skipped in all)"
