// What a probe's agents take before it simulates, against what this machine can give it (issue 80: `plan
// --target-aps 1000000` built 1.2e8 agents in its first probe and died of std::bad_alloc at 3.5 GB under a 4 GiB
// limit). A study checks each load before it runs a probe at it: one that cannot fit is refused (InputError, exit
// 2) naming the load, the agents and the memory, before any work.
//
// The estimate is the agents a probe makes (workload.aps x workload.duration) times the memory each takes, from the
// rounds of the scenario's trace at kProbeBytesPerRound each. That constant is measured, not derived: DS 27B 1P1D
// online, 64k profile (156 rounds per agent), peak RSS 248 MB with 20,000 agents and 877 MB with 80,000 (release
// build, sim.time_limit 1 s): 10.5 KB per agent, 67 bytes per round. It is a floor (a run's requests and links come
// on top), so a probe it lets through may still need more; what it refuses cannot fit.
#pragma once

#include <string>

#include "core/config/scenario.hpp"
#include "core/workload/trace.hpp"

namespace dualpath::study {

inline constexpr double kProbeBytesPerRound = 67;

// The memory a process may take here, bytes: the least of MemAvailable (/proc/meminfo), the address-space and data
// limits (ulimit -v, -d) and the cgroup's memory.max; infinity when none is known.
double machine_memory_budget();

class ProbeMemory {
 public:
  // `budget`: bytes a probe may take (0: machine_memory_budget()). From the scenario's trace (read here), or from
  // one the caller has read already.
  explicit ProbeMemory(const Scenario& sc, double budget = 0);
  explicit ProbeMemory(const Trace& trace, double budget = 0);
  // The agents and bytes of a probe at `aps` over `duration` seconds of arrivals (0: one hour's).
  static double agents(double aps, double duration) { return aps * (duration > 0 ? duration : 3600); }
  double bytes(double aps, double duration) const { return agents(aps, duration) * bytes_per_agent_; }
  // InputError at `where` when a probe at `aps` over `duration` s cannot fit in the budget.
  void check(double aps, double duration, const std::string& where) const;
  // The scenario's own run (online: its aps over its duration; offline: its agents), InputError naming
  // `scenario_path` and the key when it cannot fit.
  void check_scenario(const Scenario& sc, const std::string& scenario_path) const;

 private:
  double bytes_per_agent_ = 0, budget_ = 0, trajectories_ = 0;
  void refuse(double agents, const std::string& what, const std::string& where, const std::string& advice) const;
};

}  // namespace dualpath::study
