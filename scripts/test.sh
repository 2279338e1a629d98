#!/usr/bin/env bash
# Installs dependencies, builds (dev preset: -Wall -Wextra -Wpedantic -Werror) and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev -j"$(nproc)"
ctest --preset dev "$@"
