#!/usr/bin/env bash
# Claim 2 (docs/claims.md): under Basic, PE SNICs are >= 95% busy and DE SNICs carry <= 5% (1P1D, 2P1D).
# The same check as `dualpath claims --only 2`; exits non-zero when it fails. Its --junit report (docs/ci.md)
# validates against tests/cli/junit.xsd with one passing case per check.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 2 --scenarios "$root/scenarios/claims" --out "$tmp" --junit "$tmp/claims.xml" | tee "$tmp/out.txt"
checks=$(grep -c -E '(PASS|FAIL)$' "$tmp/out.txt")
/usr/bin/python3 "$root/tests/cli/junit_check.py" "$tmp/claims.xml" "$root/tests/cli/junit.xsd" "$checks" 0
