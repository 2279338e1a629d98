#!/usr/bin/env bash
# ctest's python.pytest: the dualpath package's tests (tests/python/) with pytest, on the package in the build tree.
# pytest's exit 5 ("no tests collected") is a failure here, with its own line: a suite that finds nothing tests
# nothing. No cache or bytecode is written into the source tree.
# Usage: run_pytest.sh <build>/python <python3>
set -u
export DUALPATH_PYTHONPATH="$1" PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
"$2" -m pytest -q -p no:cacheprovider "$(dirname "$0")"
rc=$?
[ $rc -eq 5 ] && echo "FAIL pytest collected no tests in $(dirname "$0")"
exit $rc
