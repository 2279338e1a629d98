// A study's probes run on threads of this process (core/study/probe_runner.hpp): what Python's dualpath.capacity
// uses, so that a policy registered from Python (which lives only in this interpreter) can be probed. Native engine
// only: SimGrid's engine is one per process, so its probes need `dualpath` child processes (the command line).
// The native engine keeps no state between runs, so several run at once, each on its own thread.
#pragma once

#include <exception>
#include <functional>
#include <mutex>

#include "core/study/probe_runner.hpp"

namespace dualpath::sim {

class InProcessProbeRunner : public study::ProbeRunner {
 public:
  // `slots`: probes at once when the study asks for the default (at least 1). `thread` runs each worker thread's
  // loop (Python gives each a thread state of its own); empty: the loop as it is.
  using ThreadWrapper = std::function<void(const std::function<void()>&)>;
  explicit InProcessProbeRunner(unsigned slots, ThreadWrapper thread = {});
  unsigned slots() const override { return slots_; }
  // Each task is loaded (its overlays and --set list) and run on the native engine into its folder; a task on
  // SimGrid fails naming sim.engine. An exception a run throws ends that probe (its message is the error) and is
  // kept: first_error() rethrows the first, so a caller can raise the run's own error type.
  using study::ProbeRunner::run;
  void run(const std::vector<study::ProbeTask>& tasks, unsigned parallel,
           const std::function<void(size_t, const study::ProbeEnd&)>& done,
           const std::function<void(size_t)>& started) override;
  std::exception_ptr first_error() const { return first_error_; }

 private:
  unsigned slots_;
  ThreadWrapper thread_;
  std::exception_ptr first_error_;
};

}  // namespace dualpath::sim
