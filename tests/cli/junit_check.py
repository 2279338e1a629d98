"""Checks a JUnit report that `dualpath claims --junit` or `validate --junit` wrote: it validates against
tests/cli/junit.xsd, its counts agree with its cases, its times are measured (positive, suites summing their cases),
and every case's message carries numbers.
Usage: junit_check.py REPORT XSD TESTS FAILURES [NEEDLE...]  (TESTS or FAILURES may be '-' for any; each NEEDLE
must appear in a failing case's message)."""
import re
import sys

from lxml import etree

report, xsd, want_tests, want_failures, needles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
schema = etree.XMLSchema(etree.parse(xsd))
doc = etree.parse(report)
if not schema.validate(doc):
    sys.exit(f"FAIL {report} does not validate against {xsd}: {schema.error_log.last_error}")
root = doc.getroot()
cases = root.findall("testsuite/testcase")
failing = [c for c in cases if c.find("failure") is not None]
problems = []
if int(root.get("tests")) != len(cases) or int(root.get("failures")) != len(failing):
    problems.append(f"totals {root.get('tests')}/{root.get('failures')} vs {len(cases)} cases, {len(failing)} failing")
for s in root.findall("testsuite"):
    n, f = len(s.findall("testcase")), len(s.findall("testcase/failure"))
    if int(s.get("tests")) != n or int(s.get("failures")) != f:
        problems.append(f"suite {s.get('name')}: {s.get('tests')}/{s.get('failures')} vs {n}/{f}")
if want_tests != "-" and len(cases) != int(want_tests):
    problems.append(f"{len(cases)} cases, expected {want_tests}")
if want_failures != "-" and len(failing) != int(want_failures):
    problems.append(f"{len(failing)} failing, expected {want_failures}")
# Times are measured (issue 68: they were always 0.000): every case's is positive, and a suite's is its cases' sum.
for c in cases:
    if float(c.get("time")) <= 0:
        problems.append(f"case {c.get('name')}: time {c.get('time')} is not a measured duration")
for s in root.findall("testsuite"):
    total = sum(float(c.get("time")) for c in s.findall("testcase"))
    if abs(float(s.get("time")) - total) > 1e-5 * max(1, len(s.findall("testcase"))):
        problems.append(f"suite {s.get('name')}: time {s.get('time')} is not its cases' sum {total:.6f}")
for c in cases:
    text = c.find("failure").get("message") if c.find("failure") is not None else c.findtext("system-out", "")
    if not re.search(r"\d", text):
        problems.append(f"case {c.get('name')}: no number in its message {text!r}")
for n in needles:
    if not any(n in c.find("failure").get("message") + c.get("name") for c in failing):
        problems.append(f"no failing case mentions {n!r}")
if problems:
    sys.exit(f"FAIL {report}: " + "; ".join(problems))
print(f"ok   {report}: valid JUnit, {len(cases)} case(s), {len(failing)} failing")
