#!/usr/bin/env bash
# The claims suite can fail: simulate a platform whose host DRAM costs nothing (dram_bw = 1 PB/s, as if the
# storage reads, loopback copies and KV arrivals forgot their DRAM reads and writes) while the analytic model
# keeps M = 500 GB/s. Claim 1 must then fail on the DRAM rows (simulated ~0 vs the model's 0.2 and 0.5) and
# `dualpath claims` must exit 1, and its --junit report (docs/ci.md) must count the failing checks and name them.
# Only 1P1D is needed: it runs claim 1's points, so this costs one claim-1 run.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
set +e
"$bin" claims --only 1 --scenarios "$root/scenarios/claims" --out "$tmp" --sim-set 'topology.dram_bw=1 PB/s' \
  --junit "$tmp/claims.xml" > "$tmp/out.txt" 2>&1
rc=$?
set -e
cat "$tmp/out.txt"
[ "$rc" -eq 1 ] || { echo "FAIL: expected exit code 1 with free DRAM, got $rc"; exit 1; }
grep -q 'links vs §4.2 model.*FAIL' "$tmp/out.txt" || { echo "FAIL: no failing model row"; exit 1; }
grep -E '^ +(PE|DE) DRAM .*<-- off' "$tmp/out.txt" > /dev/null || { echo "FAIL: the DRAM rows are not the ones off"; exit 1; }
echo "ok   free DRAM makes claim 1 fail on the DRAM rows"
checks=$(grep -c -E '(PASS|FAIL)$' "$tmp/out.txt"); fails=$(grep -c -E 'FAIL$' "$tmp/out.txt")
/usr/bin/python3 "$root/tests/cli/junit_check.py" "$tmp/claims.xml" "$root/tests/cli/junit.xsd" "$checks" "$fails" \
  "links vs §4.2 model"
