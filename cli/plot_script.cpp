#include "cli/plot_script.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace dualpath::cli {

namespace {
// Single-quoted for the shell (an embedded ' becomes '\'').
void append_quoted(std::ostringstream& out, const std::string& s) {
  out << " '";
  for (char c : s) {
    if (c == '\'') out << "'\\''";
    else out << c;
  }
  out << "'";
}
}  // namespace

bool run_plot_script(const std::string& who, const std::string& script, const std::vector<std::string>& args,
                     const std::string& png) {
  const std::string path = std::string(DUALPATH_DATA_DIR) + "/analysis/" + script;
  const std::string py = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  // A stream, not string operator+: GCC 12 at -O3 reports a false -Wrestrict on the chained concatenation.
  std::ostringstream cmd;
  cmd << py;
  append_quoted(cmd, path);
  for (const auto& a : args) append_quoted(cmd, a);
  const int rc = std::system(cmd.str().c_str());
  if (rc == 0) {
    std::cout << who << ": plot " << png << "\n";
    return true;
  }
  // Say why: matplotlib missing (install it), or the script itself failed (its traceback is above; a bug to report),
  // not one guess for both (issue 68: a plotting bug was reported as a missing package).
  const bool has_matplotlib = std::system((py + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0;
  std::cerr << who << ": warning: no plot (" << path
            << (has_matplotlib ? " failed; its error is above" : " needs python3-matplotlib: apt-get install python3-matplotlib")
            << ")\n";
  return false;
}

}  // namespace dualpath::cli
