// Runs this program (/proc/self/exe) as child processes, a bounded number at a time (one simulation per process:
// SimGrid allows one per process). Used by `sweep` and `claims`.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dualpath::cli {

struct ChildJob {
  std::vector<std::string> args;  // arguments after the program name, e.g. {"run", "s.json", "--quiet", ...}
  std::string log_path;           // the child's stdout and stderr go here ("" = inherit)
};

// Starts jobs in order, at most `parallel` at once; calls on_start(i) after job i starts and on_done(i, code) when
// it ends (code: exit status, or 128 + signal). Returns every job's code.
std::vector<int> run_child_jobs(const std::vector<ChildJob>& jobs, unsigned parallel,
                                const std::function<void(size_t)>& on_start,
                                const std::function<void(size_t, int)>& on_done);

// std::thread::hardware_concurrency(), at least 1.
unsigned default_parallelism();

// The text of a child's log (its last `max_chars` characters), for error messages.
std::string log_tail(const std::string& path, size_t max_chars = 400);

}  // namespace dualpath::cli
