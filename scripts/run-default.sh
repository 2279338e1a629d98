#!/usr/bin/env bash
# Installs dependencies, builds (release preset) and runs the bundled default scenario under the Basic,
# DualPath and Oracle policies, printing the comparison. Extra arguments go to `dualpath run`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target dualpath >/dev/null
./build/release/cli/dualpath run scenarios/default.json --policy basic,dualpath,oracle --out results/default "$@"
