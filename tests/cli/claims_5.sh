#!/usr/bin/env bash
# Claim 5 (docs/claims.md): equal storage bandwidth in use gives equal JCT within 5%.
# The same check as `dualpath claims --only 5`; exits non-zero when it fails.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 5 --scenarios "$root/scenarios/claims" --out "$tmp"
