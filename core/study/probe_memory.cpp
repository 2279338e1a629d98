#include "core/study/probe_memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/analysis/capacity_search.hpp"
#include "core/config/input_error.hpp"
#include "core/workload/agents.hpp"

namespace dualpath::study {
namespace {

// A number from a /proc or /sys file ("max" or unreadable: infinity); `key` picks a "Key: value kB" line.
double read_limit(const std::string& path, const std::string& key = "") {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!key.empty()) {
      if (line.rfind(key, 0) != 0) continue;
      std::istringstream s(line.substr(key.size()));
      double kb = 0;
      if (s >> kb) return kb * 1024;
      break;
    }
    std::istringstream s(line);
    double v = 0;
    if (s >> v) return v;
    break;
  }
  return std::numeric_limits<double>::infinity();
}

double rlimit_bytes(int resource) {
  rlimit r{};
  if (::getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::numeric_limits<double>::infinity();
  return static_cast<double>(r.rlim_cur);
}

std::string gb(double bytes) {
  std::ostringstream o;
  o.precision(3);
  o << bytes / 1e9 << " GB";
  return o.str();
}

}  // namespace

double machine_memory_budget() {
  return std::min({read_limit("/proc/meminfo", "MemAvailable:"), rlimit_bytes(RLIMIT_AS), rlimit_bytes(RLIMIT_DATA),
                   read_limit("/sys/fs/cgroup/memory.max")});
}

ProbeMemory::ProbeMemory(const Scenario& sc, double budget)
    : ProbeMemory(load_workload_trace(sc.workload, ""), budget) {}  // the loader resolved workload.file

ProbeMemory::ProbeMemory(const Trace& trace, double budget) : budget_(budget > 0 ? budget : machine_memory_budget()) {
  double rounds = 0;
  for (const auto& t : trace.trajectories) rounds += static_cast<double>(t.rounds.size());
  trajectories_ = static_cast<double>(trace.trajectories.size());
  const double mean = trace.trajectories.empty() ? 0 : rounds / trajectories_;
  bytes_per_agent_ = mean * kProbeBytesPerRound;
}

void ProbeMemory::refuse(double agents, const std::string& what, const std::string& where,
                         const std::string& advice) const {
  const double need = agents * bytes_per_agent_;
  if (!(need > budget_)) return;
  std::ostringstream m;
  m << what << " makes " << std::llround(agents) << " agents, at least " << gb(need) << " before it simulates ("
    << std::llround(bytes_per_agent_) << " bytes each: docs/capacity.md, \"Probe memory\"); this machine can give "
    << "a process " << gb(budget_) << ": expected " << advice;
  throw InputError(where, m.str());
}

void ProbeMemory::check(double aps, double duration, const std::string& where) const {
  std::ostringstream what;
  what << "a probe at " << analysis::load_text(aps) << " APS over " << (duration > 0 ? duration : 3600)
       << " s of arrivals";
  refuse(agents(aps, duration), what.str(), where, "a lower rate or a shorter workload.duration");
}

void ProbeMemory::check_scenario(const Scenario& sc, const std::string& scenario_path) const {
  if (sc.workload.mode == ArrivalMode::Online)
    return check(sc.workload.aps, sc.workload.duration, scenario_path + ": /workload/aps");
  const double agents = sc.workload.agents > 0 ? static_cast<double>(sc.workload.agents) : trajectories_;
  refuse(agents, "the offline run", scenario_path + ": /workload/agents", "fewer workload.agents");
}

}  // namespace dualpath::study
