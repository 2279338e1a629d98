#include "core/metrics/junit_report.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <sstream>

#include "core/config/input_error.hpp"
#include "core/config/output_file.hpp"

namespace dualpath {
namespace {

// Escapes text for an attribute or element; drops what XML 1.0 cannot hold (control characters but tab, LF, CR).
std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += "&#9;"; break;
      default: out += c < 0x20 ? '?' : ch;
    }
  }
  return out;
}

std::string seconds(double t) {
  char buf[32];
  // Microseconds: a validate case takes a few of them, and "0.000" would read as "not measured".
  std::snprintf(buf, sizeof buf, "%.6f", t < 0 ? 0.0 : t);
  return buf;
}

}  // namespace

std::string junit_xml(const std::vector<JunitSuite>& suites) {
  size_t tests = 0, failures = 0;
  double total = 0;
  for (const auto& s : suites)
    for (const auto& c : s.cases) {
      ++tests;
      failures += c.failed;
      total += c.time_s;
    }
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\"0\" time=\"" << seconds(total)
    << "\">\n";
  for (const auto& s : suites) {
    size_t f = 0;
    double t = 0;
    for (const auto& c : s.cases) {
      f += c.failed;
      t += c.time_s;
    }
    x << "  <testsuite name=\"" << xml_escape(s.name) << "\" tests=\"" << s.cases.size() << "\" failures=\"" << f
      << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(t) << "\">\n";
    for (const auto& c : s.cases) {
      x << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\"" << xml_escape(c.name)
        << "\" time=\"" << seconds(c.time_s) << "\"";
      if (!c.failed) {
        x << ">\n      <system-out>" << xml_escape(c.message) << "</system-out>\n    </testcase>\n";
        continue;
      }
      x << ">\n      <failure message=\"" << xml_escape(c.message) << "\" type=\"beyond_bound\">"
        << xml_escape(c.detail.empty() ? c.message : c.detail) << "</failure>\n    </testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

void write_junit(const std::string& path, const std::vector<JunitSuite>& suites) {
  std::error_code ec;
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ec);
  try {
    write_text_atomically(path, junit_xml(suites));
  } catch (const std::runtime_error& e) {
    throw InputError(path, std::string("cannot write the JUnit report: ") + e.what());
  }
}

}  // namespace dualpath
