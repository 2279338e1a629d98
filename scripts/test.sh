#!/usr/bin/env bash
# Installs dependencies, builds (dev preset: -Wall -Wextra -Wpedantic -Werror) and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev -j"$(nproc)"
echo "test.sh: built in ${SECONDS} s"
# DUALPATH_CI=1 (set by .ci/run) also fails on a skipped test that this machine should run
# (scripts/check_skips.sh) and runs the mutation check (scripts/mutation_check.sh).
log=$(mktemp); trap 'rm -f "$log"' EXIT
ctest --preset dev "$@" 2>&1 | tee "$log"  # pipefail: a failing ctest stops here with its status
echo "test.sh: tests done at ${SECONDS} s"
if [ "${DUALPATH_CI:-0}" = 1 ]; then
  ./scripts/check_skips.sh "$log"
  ./scripts/mutation_check.sh build/dev
  echo "test.sh: mutation check done at ${SECONDS} s"
fi
