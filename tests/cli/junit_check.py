"""Checks a JUnit report that `dualpath claims --junit` or `validate --junit` wrote: it validates against
tests/cli/junit.xsd, its counts agree with its cases, and every case's message carries numbers.
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
