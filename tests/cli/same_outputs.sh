#!/usr/bin/env bash
# scripts/same_outputs.sh, the byte-identity check for behaviour-preserving changes: the same build twice must
# compare equal, and a build whose runs differ (here: a wrapper that changes the workload seed) must not.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export SCENARIOS=default.json POLICIES="basic dualpath" CLAIMS=0

out=$("$root/scripts/same_outputs.sh" "$bin" "$bin" "$tmp/same" 2>&1) || { echo "FAIL: same build compared unequal: $out"; exit 1; }
grep -q "^same outputs: " <<< "$out" || { echo "FAIL: no verdict: $out"; exit 1; }
echo "ok: the same build twice gives the same outputs"

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
echo "ok: a build with another seed is reported ($(grep -c '^differs' <<< "$out") files differ)"
