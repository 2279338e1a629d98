#include "cli/plot_script.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace dualpath::cli {

namespace {
std::string quoted(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}
}  // namespace

bool run_plot_script(const std::string& who, const std::string& script, const std::vector<std::string>& args,
                     const std::string& png) {
  const std::string path = std::string(DUALPATH_DATA_DIR) + "/analysis/" + script;
  const std::string py = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string cmd = py + " " + quoted(path);
  for (const auto& a : args) cmd += " " + quoted(a);
  const int rc = std::system(cmd.c_str());
  if (rc == 0) {
    std::cout << who << ": plot " << png << "\n";
    return true;
  }
  std::cerr << who << ": warning: no plot (" << path << " failed; needs python3-matplotlib)\n";
  return false;
}

}  // namespace dualpath::cli
