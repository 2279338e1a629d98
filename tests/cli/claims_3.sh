#!/usr/bin/env bash
# Claim 3 (docs/claims.md): outside the range (4P1D, 8P1D) the link the analysis names saturates first and DualPath's read rate stops growing with added SNICs.
# The same check as `dualpath claims --only 3`; exits non-zero when it fails.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 3 --scenarios "$root/scenarios/claims" --out "$tmp"
