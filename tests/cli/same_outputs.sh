#!/usr/bin/env bash
# scripts/same_outputs.sh, the byte-identity check for behaviour-preserving changes: the same build twice must
# compare equal, and a build whose runs differ (here: a wrapper that changes the workload seed) must not; with
# FAULTS=1 the runs with faults and the bad faults' errors are compared too.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export SCENARIOS=default.json POLICIES="basic dualpath" CLAIMS=0 FAULTS=1 FAULT_POLICIES=dualpath

out=$("$root/scripts/same_outputs.sh" "$bin" "$bin" "$tmp/same" 2>&1) || { echo "FAIL: same build compared unequal: $out"; exit 1; }
grep -q "^same outputs: " <<< "$out" || { echo "FAIL: no verdict: $out"; exit 1; }
n_faults=$(find "$tmp/same/old/faults" -name exit | wc -l)
[ "$n_faults" -ge 17 ] || { echo "FAIL: only $n_faults fault cases ran"; exit 1; }
[ "$(cat "$tmp/same/old/faults/bad-0/exit")" = 2 ] && grep -q "/faults/0/node" "$tmp/same/old/faults/bad-0/stderr" ||
  { echo "FAIL: a bad fault's exit code and error were not kept"; exit 1; }
echo "ok: the same build twice gives the same outputs ($n_faults fault cases and bad faults included)"

cat > "$tmp/other" <<SH
#!/usr/bin/env bash
if [ "\$1" = run ]; then exec "$bin" "\$@" --set workload.seed=2; fi
exec "$bin" "\$@"
SH
chmod +x "$tmp/other"
set +e
out=$("$root/scripts/same_outputs.sh" "$bin" "$tmp/other" "$tmp/diff" 2>&1); rc=$?
set -e
[ "$rc" = 1 ] || { echo "FAIL: a different build gave exit $rc: $out"; exit 1; }
grep -q "^differs: default-dualpath/requests.csv" <<< "$out" || { echo "FAIL: the differing file is not named: $out"; exit 1; }
grep -q "^differs: faults/de-node-down-dualpath/run/requests.csv" <<< "$out" ||
  { echo "FAIL: a differing run with faults is not named: $out"; exit 1; }
echo "ok: a build with another seed is reported ($(grep -c '^differs' <<< "$out") files differ)"
