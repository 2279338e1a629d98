#!/usr/bin/env bash
# The report scripts on damaged and hostile files (issue 80): tests/cli/report_hostile.py, with Hypothesis.
# Usage: report_hostile.sh <dualpath-binary> <repo-root>
set -u
if ! /usr/bin/python3 -c "import hypothesis, matplotlib, pandas" 2>/dev/null; then
  echo "FAIL report_hostile needs python3-hypothesis, python3-matplotlib and python3-pandas (scripts/install-deps.sh)"
  exit 1
fi
out=$(PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg /usr/bin/python3 "$2/tests/cli/report_hostile.py" "$1" "$2" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] && ! grep -q "^FAIL" <<< "$out"
