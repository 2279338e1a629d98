#!/usr/bin/env bash
# ctest's python.install: `cmake --install` of this build into a fresh prefix puts the CLI into <prefix>/bin and the
# package into Python's path under the prefix (DUALPATH_PYTHON_INSTALL_DIR); the installed package imports from
# there alone, runs a simulation, and its command-line verbs run the installed CLI (docs/python.md).
# Usage: install_check.sh <build-dir> <python3> <python-install-dir>
set -euo pipefail
build="$1"; py="$2"; sub="$3"
prefix=$(mktemp -d); trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
[ -x "$prefix/bin/dualpath" ] || { echo "FAIL no CLI in $prefix/bin"; exit 1; }
cd "$prefix"  # nowhere near the build tree
PYTHONPATH="$prefix/$sub" PYTHONDONTWRITEBYTECODE=1 "$py" - "$prefix" <<'PY'
import os, sys
import dualpath as dp
from dualpath._cli import cli_path
prefix = sys.argv[1]
assert dp.__file__.startswith(prefix), f"imported {dp.__file__}, not the installed package"
assert cli_path() == os.path.join(prefix, "bin", "dualpath"), cli_path()
run = dp.run(dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "default.json"), set={"workload.agents": 4}))
stats = dp.trace.stats(os.path.join(dp.DATA_DIR, "tests", "traces", "burstgpt_sample.csv"), source="burstgpt")
assert run.results["rounds"] > 0 and stats["burstgpt"]["requests"] == 4
print(f"ok   installed into {prefix}: imports, runs ({run.results['rounds']} rounds), its verbs run {cli_path()}")
PY
