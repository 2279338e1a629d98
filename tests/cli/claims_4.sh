#!/usr/bin/env bash
# Claim 4 (docs/claims.md): in the I/O-bound regime Basic/DualPath JCT approaches (P+D)/P as compute gets cheaper and never exceeds it.
# The same check as `dualpath claims --only 4`; exits non-zero when it fails.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 4 --scenarios "$root/scenarios/claims" --out "$tmp"
