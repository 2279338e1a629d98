#!/usr/bin/env bash
# The golden corpus (tests/golden/, scripts/golden.sh): this build's outputs must match the committed ones, and the
# check must catch a change: a build whose runs differ (a wrapper that changes the workload seed) fails it, naming
# the case and the file; a case missing from the corpus fails it; bless then makes it pass again.
set -euo pipefail
bin="$1"; root="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$(GOLDEN_WORK="$tmp/work" "$root/scripts/golden.sh" check "$bin" 2>&1) || {
  echo "FAIL: this build's outputs differ from tests/golden/ (scripts/golden.sh bless after an intended change):"
  echo "$out"; exit 1; }
echo "$out"

# A corpus of two cases of the real one, checked against a build whose results move.
mkdir -p "$tmp/corpus"
grep -E '^(default-dualpath|bad-fault)\|' "$root/tests/golden/cases.txt" > "$tmp/corpus/cases.txt"
cp -r "$root/tests/golden/default-dualpath" "$root/tests/golden/bad-fault" "$tmp/corpus/"
cat > "$tmp/other" <<SH
#!/usr/bin/env bash
if [ "\$1" = run ]; then exec "$bin" "\$@" --set workload.seed=2; fi
exec "$bin" "\$@"
SH
chmod +x "$tmp/other"
set +e
out=$(GOLDEN_WORK="$tmp/moved" GOLDEN_CORPUS="$tmp/corpus" "$root/scripts/golden.sh" check "$tmp/other" 2>&1); rc=$?
set -e
[ "$rc" = 1 ] || { echo "FAIL: a build with other results passed the golden check (exit $rc): $out"; exit 1; }
grep -q "golden: default-dualpath: Files .*/digests.txt .* differ" <<< "$out" ||
  { echo "FAIL: the moved requests.csv/links.csv digests are not named: $out"; exit 1; }
grep -q "golden: default-dualpath:   >  *\"seed\": 2," <<< "$out" ||
  { echo "FAIL: the summary.json diff is not shown: $out"; exit 1; }
if grep -q "golden: bad-fault" <<< "$out"; then echo "FAIL: an unchanged case was reported: $out"; exit 1; fi
echo "ok: a build whose results move fails the check, naming the case and files"

# A case the corpus lacks fails; bless writes it, and the check passes.
echo 'default-oracle|scenarios/default.json|--policy|oracle|--set|workload.agents=8' >> "$tmp/corpus/cases.txt"
set +e
out=$(GOLDEN_WORK="$tmp/missing" GOLDEN_CORPUS="$tmp/corpus" "$root/scripts/golden.sh" check "$bin" 2>&1); rc=$?
set -e
[ "$rc" = 1 ] && grep -q "golden: default-oracle: not in the corpus" <<< "$out" ||
  { echo "FAIL: a case missing from the corpus was not reported (exit $rc): $out"; exit 1; }
GOLDEN_CORPUS="$tmp/corpus" "$root/scripts/golden.sh" bless "$bin" > /dev/null
GOLDEN_CORPUS="$tmp/corpus" "$root/scripts/golden.sh" check "$bin" | grep -q "golden: 3 cases match" ||
  { echo "FAIL: the check after bless did not pass"; exit 1; }
echo "ok: bless adds a new case and the check passes after it"
echo "golden corpus passed"
