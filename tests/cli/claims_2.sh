#!/usr/bin/env bash
# Claim 2 (docs/claims.md): under Basic, PE SNICs are >= 95% busy and DE SNICs carry <= 5% (1P1D, 2P1D).
# The same check as `dualpath claims --only 2`; exits non-zero when it fails.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 2 --scenarios "$root/scenarios/claims" --out "$tmp"
