// How a study runs its probes (issue 78: the study layer decides what to run, its face decides how). A probe is a
// whole run of a scenario file with its overlays and --set list into a folder; a runner runs a set of them, at most
// slots() at once, and reports each as it ends. The command line runs each as a `dualpath run` child process
// (cli/child_probes.hpp: one simulation per process, as SimGrid needs); Python runs them on threads of its own
// process (sim/inprocess_probes.hpp), so a policy registered from Python can be probed.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dualpath::study {

struct ProbeTask {
  std::string scenario;                          // the scenario file
  std::vector<std::string> overlays, overrides;  // applied in this order, as `dualpath run` applies them
  std::string out;                               // the folder the run writes (a staging folder, made)
  std::string policy;                            // set after loading, as `dualpath run --policy` ("": the scenario's)
  std::string log_name;                          // a child's log in `out` ("": run.log)
};

struct ProbeEnd {
  bool ok = false;
  std::string error;  // why it failed: the run's own message, or the tail of its log
};

class ProbeRunner {
 public:
  virtual ~ProbeRunner() = default;
  // How many probes run at once (a study proposes this many loads per round when the user gave no number).
  virtual unsigned slots() const = 0;
  // Runs `tasks`, at most `parallel` at once; calls started(i) as each starts (when given) and done(i, end) as it
  // ends, one call at a time.
  virtual void run(const std::vector<ProbeTask>& tasks, unsigned parallel,
                   const std::function<void(size_t, const ProbeEnd&)>& done,
                   const std::function<void(size_t)>& started) = 0;
  void run(const std::vector<ProbeTask>& tasks, unsigned parallel,
           const std::function<void(size_t, const ProbeEnd&)>& done) {
    run(tasks, parallel, done, {});
  }
};

}  // namespace dualpath::study
