// JUnit XML, the test-report format CI systems display as per-test results (GitHub Actions through a report
// action, GitLab's `artifacts:reports:junit`, Jenkins' junit step). `dualpath claims --junit` writes one test
// case per claim check and `dualpath validate --junit` one per metric, each with the measured value, the bound
// and the tolerance in its message. The layout follows the schema those tools accept (the Ant JUnit schema, as
// in the Jenkins xunit plugin's junit-10.xsd): <testsuites> of <testsuite name tests failures errors skipped
// time> of <testcase classname name time>, a failing case holding <failure message type>text</failure>.
#pragma once

#include <string>
#include <vector>

namespace dualpath {

struct JunitCase {
  std::string classname;  // e.g. "claims.claim1" or "validate.dualpath"
  std::string name;       // e.g. "PE SNIC saturated" or "jct"
  bool failed = false;
  std::string message;    // one line: the value, the bound, the tolerance
  std::string detail;     // the failure's body text (may be empty)
  double time_s = 0;      // measured wall seconds this case cost (its share of the work it checks; see the callers)
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
};

// The XML document (UTF-8, characters XML 1.0 cannot hold replaced by '?').
std::string junit_xml(const std::vector<JunitSuite>& suites);

// Writes it to `path` atomically (a temporary file renamed over it); throws InputError naming the path when the
// file cannot be written.
void write_junit(const std::string& path, const std::vector<JunitSuite>& suites);

}  // namespace dualpath
