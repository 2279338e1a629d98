// Runs one scenario on the SimGrid backend and writes its results: summary.json (deterministic), requests.csv,
// links.csv, and perf.json (wall time and event counts, which vary between machines). One per process.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"

namespace dualpath::sim {

struct RunOutcome {
  nlohmann::json summary;  // what summary.json holds
  double wall_seconds = 0;
  double simulated_seconds = 0;
  uint64_t events = 0;
};

// scenario_dir resolves relative trace paths; out_dir is created. Throws InputError on bad input and
// NoProgressError when requests can never finish.
RunOutcome run_scenario(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir);

}  // namespace dualpath::sim
