// dualpath report RESULTS_DIR [RESULTS_DIR...] [--out DIR]
// Plots and an index.html from the outputs of `dualpath run` (a single-policy folder or a multi-policy folder of
// policy subfolders) and `dualpath sweep` (sweep.csv), simulator and hardware results side by side. The work is
// done by analysis/report.py under Debian's Python 3 (matplotlib, pandas): /usr/bin/python3 unless
// DUALPATH_PYTHON names another; the scripts are found in DUALPATH_ANALYSIS_DIR or the source tree's analysis/.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/config/input_error.hpp"
#include "core/config/output_file.hpp"
#include "core/vocab/link_kinds.hpp"

namespace dualpath::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> dirs;
  std::string out;
};

std::string python() {
  if (const char* p = std::getenv("DUALPATH_PYTHON"); p && *p) return p;
  if (::access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

std::string analysis_dir() {
  if (const char* d = std::getenv("DUALPATH_ANALYSIS_DIR"); d && *d) return d;
  return std::string(DUALPATH_DATA_DIR) + "/analysis";
}

int run_child(std::vector<std::string> argv) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    std::vector<char*> cargv;
    for (auto& s : argv) cargv.push_back(s.data());
    cargv.push_back(nullptr);
    ::execvp(cargv[0], cargv.data());
    std::perror(("dualpath report: cannot run " + argv[0]).c_str());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void report(const ReportArgs& a) {
  namespace fs = std::filesystem;
  for (const auto& d : a.dirs) {
    std::error_code ec;
    if (!fs::exists(d, ec))
      throw InputError(d, "no such folder (expected the --out folder of `dualpath run` or `dualpath sweep`, e.g. "
                          "results/default)");
    if (!fs::is_directory(d, ec))
      throw InputError(d, "is a file, expected a results folder (the --out folder of `dualpath run` or `dualpath "
                          "sweep`)");
  }
  const std::string script = analysis_dir() + "/report.py";
  if (!fs::exists(script))
    throw InputError(script, "analysis script not found (set DUALPATH_ANALYSIS_DIR to the analysis/ folder)");
  const std::string out = a.out.empty() ? (fs::path(a.dirs.front()) / "report").string() : a.out;
  make_output_folder(out, "--out");  // a file there, or a path through one, is refused before Python runs
  std::vector<std::string> argv = {python(), script, "--out", out, "--link-kinds", link_kinds_json().dump()};
  argv.insert(argv.end(), a.dirs.begin(), a.dirs.end());
  const int rc = run_child(argv);
  if (rc != 0) throw CLI::RuntimeError(rc == kExitBadInput ? kExitBadInput : kExitFailure);
}

}  // namespace

void register_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Plot results (JCT, throughput, TTFT CDF and breakdown, link utilisation, sweeps) into an index.html");
  cmd->add_option("results", args->dirs, "Results folders of `dualpath run` or `dualpath sweep` (sim or hw)")
      ->required();
  cmd->add_option("--out", args->out, "Report folder (default: <first results folder>/report)");
  cmd->callback([args] { report(*args); });
}

}  // namespace dualpath::cli
