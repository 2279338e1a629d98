#!/usr/bin/env bash
# dualpath validate: a simulated run against itself passes (exit 0); against a doctored copy whose JCT is 20%
# higher it fails naming JCT (exit 1); bad inputs exit 2 with one stderr line naming the file or option.
# Usage: validate.sh <dualpath-binary> <repo-root>
set -u
BIN="$1"
ROOT="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
failures=0
cases=0
fail() { echo "FAIL [$1]: $2"; failures=$((failures + 1)); }

# A small two-policy run (a few seconds): per-policy subfolders basic/ and dualpath/.
"$BIN" run "$ROOT/scenarios/default.json" --policy basic,dualpath --set workload.agents=4 --quiet --out "$TMP/sim" \
  >/dev/null ||
  { echo "FAIL: the simulation did not run"; exit 1; }

# expect_rc LABEL RC NEEDLE... -- ARGS...: run `dualpath validate ARGS`, require exit RC and every NEEDLE (fixed
# strings) in stdout (RC 0 or 1) or in the single stderr line (RC 2).
expect_rc() {
  local label="$1" want="$2"; shift 2
  local needles=()
  while [ "$1" != "--" ]; do needles+=("$1"); shift; done
  shift
  cases=$((cases + 1))
  "$BIN" validate "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$? where="$TMP/out"
  [ "$rc" -eq "$want" ] || fail "$label" "exit $rc, expected $want; stderr: $(head -c 300 "$TMP/err")"
  if [ "$want" -eq 2 ]; then
    where="$TMP/err"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$label" "expected one stderr line, got: $(cat "$TMP/err")"
    [ -s "$TMP/out" ] && fail "$label" "printed to stdout on bad input"
    grep -q '^dualpath: error: ' "$TMP/err" || fail "$label" "stderr lacks the 'dualpath: error: ' prefix"
  fi
  for n in "${needles[@]}"; do grep -qF -- "$n" "$where" || fail "$label" "output lacks '$n'"; done
}

# Same run on both sides.
expect_rc "multi-policy self" 0 "policy basic" "policy dualpath" "jct" "bytes.storage_read_de_snic" \
  "38 of 38 metrics within tolerance" -- "$TMP/sim" "$TMP/sim"
expect_rc "single run self" 0 "policy dualpath" -- "$TMP/sim/dualpath" "$TMP/sim/dualpath"

# A "measured" copy whose JCT is 20% higher: beyond the 10% default.
cp -r "$TMP/sim" "$TMP/hw"
scale_jct() {  # scale_jct FILE FACTOR: multiply results.jct_s (one "jct_s": N line in summary.json)
  awk -v f="$2" '$1 == "\"jct_s\":" { c = ($2 ~ /,$/) ? "," : ""; v = $2; sub(/,$/, "", v);
                 printf "\"jct_s\": %.17g%s\n", v * f, c; next } { print }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}
scale_jct "$TMP/hw/dualpath/summary.json" 1.2
expect_rc "JCT +20%" 1 "FAIL" "jct (dualpath)" "37 of 38" -- "$TMP/sim" "$TMP/hw" --json "$TMP/v.json"
grep -q '^jct .*FAIL$' "$TMP/out" || fail "JCT +20%" "the jct row is not marked FAIL"
cases=$((cases + 1))
grep -q '"ok": false' "$TMP/v.json" 2>/dev/null || fail "--json" "no \"ok\": false in the JSON file"
expect_rc "JCT +20% within --tol jct=0.25" 0 -- "$TMP/sim" "$TMP/hw" --tol jct=0.25
expect_rc "JCT +20% within --tol jct=25%" 0 -- "$TMP/sim/dualpath" "$TMP/hw/dualpath" --tol jct=25%
expect_rc "JCT +20% not in --only latency,bytes" 0 -- "$TMP/sim" "$TMP/hw" --only latency,bytes

# Bad input: exit 2, naming what is wrong.
expect_rc "missing folder" 2 "$TMP/none" "does not exist" -- "$TMP/sim" "$TMP/none"
mkdir "$TMP/empty"
expect_rc "folder without summary" 2 "$TMP/empty" "no summary.json" -- "$TMP/sim" "$TMP/empty"
expect_rc "mixed layouts" 2 "per-policy subfolders" -- "$TMP/sim/basic" "$TMP/sim"
expect_rc "different policies" 2 "/policy" "basic" "dualpath" -- "$TMP/sim/basic" "$TMP/sim/dualpath"
cp -r "$TMP/sim/basic" "$TMP/rounds"
sed -i "s/^\\( *\"rounds\": \\)[0-9]*/\\1999999/" "$TMP/rounds/summary.json"
expect_rc "different rounds" 2 "/results/rounds" "999999" -- "$TMP/sim/basic" "$TMP/rounds"
cp -r "$TMP/sim/basic" "$TMP/broken"
head -c 200 "$TMP/sim/basic/summary.json" >"$TMP/broken/summary.json"
expect_rc "malformed summary" 2 "$TMP/broken/summary.json:" "malformed JSON" -- "$TMP/sim/basic" "$TMP/broken"
cp -r "$TMP/sim/dualpath" "$TMP/negative"
scale_jct "$TMP/negative/summary.json" -1
expect_rc "a negative JCT is refused, not taken for an improvement" 2 "/results/jct_s" ">= 0" -- \
  "$TMP/negative" "$TMP/sim/dualpath" --gate
expect_rc "unknown --tol metric" 2 "--tol jtc=0.1" "unknown metric" -- "$TMP/sim" "$TMP/sim" --tol jtc=0.1
expect_rc "bad --tol value" 2 "--tol jct=lots" "fraction" -- "$TMP/sim" "$TMP/sim" --tol jct=lots
expect_rc "unknown --only metric" 2 "--only jct,nvlink" "unknown metric \"nvlink\"" -- \
  "$TMP/sim" "$TMP/sim" --only jct,nvlink

echo "validate: $cases cases, $failures failures"
[ "$failures" -eq 0 ]
