// The command line this process was started with (argv after the program name), for commands that write a job
// script re-running themselves (cli/slurm_jobs.hpp). Set by run_app before parsing.
#pragma once

#include <string>
#include <vector>

namespace dualpath::cli {

inline std::vector<std::string>& invocation_args() {
  static std::vector<std::string> args;
  return args;
}

}  // namespace dualpath::cli
