// The JUnit writer: counts per suite and in total, a failure element only on failing cases, and text that cannot
// break the XML (markup characters escaped, control bytes dropped).
#include <gtest/gtest.h>

#include <string>

#include "core/metrics/junit_report.hpp"

using namespace dualpath;

namespace {
size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(JunitReport, CountsCasesAndFailuresPerSuiteAndInTotal) {
  const std::string x = junit_xml({{"claims.claim1", {{"claims.claim1", "a", false, "ok 1", "", 0},
                                                      {"claims.claim1", "b", true, "measured 0.1, expected >= 0.9", "", 0}}},
                                   {"claims.claim2", {{"claims.claim2", "c", true, "m", "detail", 1.5}}}});
  EXPECT_NE(x.find("<testsuites tests=\"3\" failures=\"2\" errors=\"0\" time=\"1.500000\">"), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"claims.claim1\" tests=\"2\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"claims.claim2\" tests=\"1\" failures=\"1\""), std::string::npos) << x;
  EXPECT_EQ(count(x, "<testcase "), 3u);
  EXPECT_EQ(count(x, "<failure "), 2u);
  EXPECT_NE(x.find("<failure message=\"measured 0.1, expected &gt;= 0.9\" type=\"beyond_bound\">"), std::string::npos);
  EXPECT_NE(x.find(">detail</failure>"), std::string::npos);  // the body, when given
}

TEST(JunitReport, EscapesMarkupAndDropsControlBytes) {
  const std::string x = junit_xml({{"s<&>", {{"c\"'", std::string("n\x01x\n", 4), true, "<b>&", "", 0}}}});
  EXPECT_NE(x.find("name=\"s&lt;&amp;&gt;\""), std::string::npos) << x;
  EXPECT_NE(x.find("classname=\"c&quot;&apos;\""), std::string::npos) << x;
  EXPECT_NE(x.find("name=\"n?x&#10;\""), std::string::npos) << x;
  EXPECT_NE(x.find("message=\"&lt;b&gt;&amp;\""), std::string::npos) << x;
  EXPECT_EQ(x.find('\x01'), std::string::npos);
}

TEST(JunitReport, AnEmptyReportIsValid) {
  const std::string x = junit_xml({});
  EXPECT_NE(x.find("<testsuites tests=\"0\" failures=\"0\""), std::string::npos);
  EXPECT_NE(x.find("</testsuites>"), std::string::npos);
}
