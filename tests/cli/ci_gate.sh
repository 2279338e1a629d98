#!/usr/bin/env bash
# CI pipelines as users (docs/ci.md): the example GitHub Actions workflow and GitLab CI job parse as YAML and carry
# the same dualpath commands; those commands, run locally at small size in a repository laid out as the examples
# expect (a small ci/scenario.json, ci/claims/ from the bundled claims scenarios, a baseline made by the same
# run), pass the gate and write JUnit reports that validate against tests/cli/junit.xsd; a changed policy fails the
# gate naming the metric (exit 1, a REGRESSION line, a failing JUnit case); an improvement passes; a run of another
# scenario is refused with one line (exit 2). Usage: ci_gate.sh <dualpath-binary> <repo-root>
set -euo pipefail
bin="$1"; root="$(cd "$2" && pwd)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*"; exit 1; }
py=/usr/bin/python3

# The dualpath commands of both examples (GitHub: steps whose run starts with "dualpath"; GitLab: script lines).
$py - "$root/examples/ci" > "$tmp/commands.txt" <<'PY'
import sys, yaml
d = sys.argv[1]
gh = yaml.safe_load(open(f"{d}/github-actions.yml"))
steps = gh["jobs"]["gate"]["steps"]
gh_cmds = [s["run"].strip() for s in steps if s.get("run", "").startswith("dualpath ")]
gl = yaml.safe_load(open(f"{d}/gitlab-ci.yml"))["dualpath-gate"]
gl_cmds = [c for c in gl["script"] if c.startswith("dualpath ")]
assert gh_cmds and gh_cmds == gl_cmds, f"the two examples run different dualpath commands: {gh_cmds} vs {gl_cmds}"
assert gl["artifacts"]["reports"]["junit"] in ("reports/*.xml", ["reports/*.xml"]), "GitLab does not collect the JUnit reports"
assert any(s.get("uses", "").startswith("mikepenz/action-junit-report") for s in steps), "no report step on GitHub"
print("\n".join(gh_cmds))
PY
echo "ok   both examples parse as YAML and run the same $(wc -l < "$tmp/commands.txt") dualpath commands"

# A user's repository: ci/scenario.json (DS 27B, 32 agents) and ci/claims/ with absolute model and topology paths.
mkdir -p "$tmp/repo/ci/claims"
$py - "$root" "$tmp/repo/ci" <<'PY'
import json, os, sys
root, ci = sys.argv[1], sys.argv[2]
def localise(src, dst, **workload):
    s = json.load(open(src))
    for k in ("model", "topology"):
        s[k] = os.path.normpath(os.path.join(os.path.dirname(src), s[k]))
    s["workload"].update(workload)
    json.dump(s, open(dst, "w"), indent=2)
localise(f"{root}/scenarios/default.json", f"{ci}/scenario.json", agents=32)
for f in ("steady.json", "jct.json"):
    localise(f"{root}/scenarios/claims/{f}", f"{ci}/claims/{f}")
PY
mkdir -p "$tmp/bin"; ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$tmp/bin/dualpath"
export PATH="$tmp/bin:$PATH"
cd "$tmp/repo"
dualpath run ci/scenario.json --out ci/baseline --quiet > /dev/null

# The commands as the pipeline runs them; at small size, the claims step checks claim 2 only.
pipeline() {  # pipeline LOG: runs every command, stops at the first that fails; returns its exit code
  local rc=0
  while IFS= read -r cmd; do
    [[ $cmd == "dualpath claims "* ]] && cmd+=" --only 2 --jobs 2"
    eval "$cmd" >> "$1" 2>&1 || { rc=$?; break; }
  done < "$tmp/commands.txt"
  return $rc
}
rm -rf results reports
pipeline "$tmp/pass.log" || fail "the pipeline on an unchanged scenario: $(tail -5 "$tmp/pass.log")"
grep -q "gate: only a move the worse way" "$tmp/pass.log" || fail "the gate does not say what it checks"
grep -q "^versions: 0\.1\.0" "$tmp/pass.log" || fail "the gate does not name the versions it compares"
$py "$root/tests/cli/junit_check.py" reports/claims.xml "$root/tests/cli/junit.xsd" - 0
$py "$root/tests/cli/junit_check.py" reports/gate.xml "$root/tests/cli/junit.xsd" 19 0
echo "ok   an unchanged scenario passes the claims and the gate"

# A changed policy (a compute quota of 2 ms instead of 300 ms): TTFT p99 grows ~73%, beyond 5% (and JCT +2.2%).
$py - ci/scenario.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["policy"]["compute_quota"] = "2 ms"; json.dump(s, open(sys.argv[1], "w"), indent=2)
PY
rm -rf results reports
rc=0; pipeline "$tmp/changed.log" || rc=$?
[ "$rc" -eq 1 ] || fail "a changed policy: exit $rc, expected 1: $(tail -5 "$tmp/changed.log")"
# The line docs/ci.md quotes.
grep -qxF "REGRESSION ttft_p99 (dualpath): 0.183036 -> 0.317242 s (+73.32%), tolerance 5.00%" "$tmp/changed.log" \
  || fail "not the REGRESSION line docs/ci.md quotes: $(grep -i regression "$tmp/changed.log")"
$py "$root/tests/cli/junit_check.py" reports/gate.xml "$root/tests/cli/junit.xsd" 19 - ttft_p99
echo "ok   a changed policy fails the gate naming ttft_p99"

# The other way round the same change is an improvement in times: the gate on them passes, a plain comparison does
# not (bytes moving either way would still fail a gate: what moves changed).
dualpath validate ci/baseline results/new --gate --only jct,throughput,latency --tol jct=0.02 --tol latency=0.05 \
  > "$tmp/better.log" \
  || fail "an improvement failed the gate: $(grep REGRESSION "$tmp/better.log")"
rc=0; dualpath validate ci/baseline results/new --only jct,throughput,latency --tol jct=0.02 --tol latency=0.05 \
  > /dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "without --gate the same difference should fail (exit $rc)"
echo "ok   an improvement passes the gate (a plain comparison still reports it)"

# Another scenario is refused with one line, unless asked.
dualpath run "$root/scenarios/ds27b-1p1d.json" --set workload.agents=8 --out "$tmp/other" --quiet > /dev/null
rc=0; dualpath validate "$tmp/other" ci/baseline --gate > "$tmp/o.out" 2> "$tmp/o.err" || rc=$?
[[ $rc -eq 2 && $(wc -l < "$tmp/o.err") -eq 1 && ! -s "$tmp/o.out" ]] || fail "another scenario: exit $rc, $(cat "$tmp/o.err")"
grep -q 'answers another question than .*(scenario "ds27b-1p1d" vs "default")' "$tmp/o.err" || fail "$(cat "$tmp/o.err")"
echo "ok   a run of another scenario is refused with one line: $(cat "$tmp/o.err")"

# The schema check can fail: a report without the case names CI tools need does not validate.
sed 's/ classname="[^"]*"//' reports/gate.xml > "$tmp/broken.xml"
if $py "$root/tests/cli/junit_check.py" "$tmp/broken.xml" "$root/tests/cli/junit.xsd" - - > /dev/null 2>&1; then
  fail "a JUnit report without classname validated"
fi
echo "ok   a malformed JUnit report fails the schema"
