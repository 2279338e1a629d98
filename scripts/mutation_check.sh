#!/usr/bin/env bash
# Mutation check (issue 16): every mechanism of core/mutation/mutant.hpp's list must be caught by the test suite.
# For each mutant, runs the suite with DUALPATH_MUTANT set, cheapest tier first, and stops at the first tier that
# fails: (1) the core unit tests, (2) the simulator tests (ctest -L sim), (3) a few command-line tests. Prints the
# table mutant -> tests that caught it; exits 1 when a mutant survives every tier or the unmutated tiers fail.
# Needs a build configured with DUALPATH_MUTATION=ON (the dev preset).
# Usage: scripts/mutation_check.sh [BUILD_DIR] [MUTANT...]   (default build/dev, every mutant)
set -u
cd "$(dirname "$0")/.."
build="${1:-build/dev}"; shift || true
core_tests="$build/tests/dualpath_core_tests"
[ -x "$core_tests" ] || { echo "mutation_check: $core_tests not built (cmake --build --preset dev)"; exit 2; }
grep -q "DUALPATH_MUTATION:BOOL=ON" "$build/CMakeCache.txt" \
  || { echo "mutation_check: $build is not configured with DUALPATH_MUTATION=ON (use the dev preset)"; exit 2; }
mutants=("$@")
if [ ${#mutants[@]} -eq 0 ]; then
  mapfile -t mutants < <(sed -n 's/^ *{"\([a-z_]*\)", ".*},$/\1/p' core/mutation/mutant.hpp)
fi
# Tier 3: end-to-end checks against closed forms and the paper's claims, a few seconds to a minute each.
cli_tier='^cli\.(sim_invariants|sim_fidelity|sim_faults|sim_node_down|claims_waits|claims_1)$'
log=$(mktemp -d); trap 'rm -rf "$log"' EXIT

# The tests ctest lists under "The following tests FAILED:" (not the disabled or skipped ones it also lists).
failed_in() { awk '/tests FAILED:/ {on = 1; next} on && / - / {print $3}' "$1"; }

# Failing tests of one tier for the mutant in $1 ("" = none), one name per line.
tier() {
  local m="$1" t="$2"
  case "$t" in
    core) DUALPATH_MUTANT="$m" timeout 600 "$core_tests" --gtest_brief=1 > "$log/out" 2>&1
          grep -o '^\[  FAILED  \] [A-Za-z0-9_/.]*' "$log/out" | sed 's/^\[  FAILED  \] //' | sort -u
          grep -q "PASSED\|FAILED" "$log/out" || echo "(core tests crashed or hung)" ;;
    sim)  DUALPATH_MUTANT="$m" ctest --test-dir "$build" -L '^sim$' -j2 --timeout 300 > "$log/out" 2>&1
          failed_in "$log/out" ;;
    cli)  DUALPATH_MUTANT="$m" ctest --test-dir "$build" -R "$cli_tier" -j2 --timeout 600 > "$log/out" 2>&1
          failed_in "$log/out" ;;
  esac
}

for t in core sim; do
  f=$(tier "" "$t")
  [ -z "$f" ] || { echo "mutation_check: the unmutated $t tier fails: $f"; exit 1; }
done

survivors=0
printf '%-22s %-5s %s\n' "mutant" "tier" "caught by"
for m in "${mutants[@]}"; do
  caught=""; where="-"
  for t in core sim cli; do
    caught=$(tier "$m" "$t")
    if [ -n "$caught" ]; then where="$t"; break; fi
  done
  if [ -z "$caught" ]; then
    survivors=$((survivors + 1)); caught="SURVIVED (no test fails without this mechanism)"
  fi
  n=$(wc -l <<< "$caught")
  first=$(head -3 <<< "$caught" | paste -sd, | sed 's/,/, /g')
  [ "$n" -gt 3 ] && first="$first (+$((n - 3)) more)"
  printf '%-22s %-5s %s\n' "$m" "$where" "$first"
done
[ "$survivors" -eq 0 ] || { echo "mutation_check: $survivors mutant(s) survived"; exit 1; }
echo "mutation_check: every mutant was caught"
