#!/usr/bin/env bash
# Installs dependencies, builds (release preset) and runs the bundled default scenario under the Basic,
# DualPath and Oracle policies, printing the comparison. Extra arguments go to `dualpath run`.
# The build's progress goes to stderr as one line, every 10% (the first build takes minutes); a failed build
# prints its log's end.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
if [ ! -x build/release/cli/dualpath ]; then
  echo "run-default: building dualpath (release preset, first use: 4-9 minutes on 2 cores)" >&2
fi
log=$(mktemp); trap 'rm -f "$log"' EXIT
if ! cmake --build --preset release -j"$(nproc)" --target dualpath 2>&1 | tee "$log" |
  sed -un 's/^\[ *\([0-9]*\)%\].*/\1/p' | awk 'int($1 / 10) != step { step = int($1 / 10); printf "\rrun-default: build %3d%%", $1 > "/dev/stderr" }
                                             END { if (NR) printf "\n" > "/dev/stderr" }'; then
  echo "run-default: the build failed; its last lines:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
./build/release/cli/dualpath run scenarios/default.json --policy basic,dualpath,oracle --out results/default "$@"
