#!/usr/bin/env bash
# Claim 1 (docs/claims.md): inside the bottleneck-free range, every link class matches the §4.2 model within 0.03 and every SNIC is >= 95% busy (DualPath 1P1D, 2P1D, 1P2D, 3P1D).
# The same check as `dualpath claims --only 1`; exits non-zero when it fails.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin" claims --only 1 --scenarios "$root/scenarios/claims" --out "$tmp"
