# Sourced by the tests/cli scripts that check bad input: `bad_input NAME WANT CMD...` runs CMD and expects exit 2
# with WANT (a fixed string) in its output; prints one ok/FAIL line and sets fail=1 on failure.
fail=${fail:-0}
bad_input() {
  local name="$1" want="$2"; shift 2
  local o; o=$("$@" 2>&1); local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$want" <<< "$o"; then echo "ok   $name: exit 2, $(grep -v '^Run with' <<< "$o" | tail -1)"
  else echo "FAIL $name: exit $rc, expected 2 and '$want': $o"; fail=1; fi
}
