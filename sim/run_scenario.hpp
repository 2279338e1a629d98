// Runs one scenario on a simulator (the native solver or SimGrid, sim.engine) through core/run's pipeline, which
// writes its results: summary.json (deterministic), requests.csv, links.csv, and perf.json (wall time and event
// counts, which vary between machines). One per process.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/metrics/trace_events.hpp"
#include "core/run/run_pipeline.hpp"

namespace dualpath::sim {

struct RunOutcome {
  nlohmann::json summary;  // what summary.json holds
  double wall_seconds = 0;
  double simulated_seconds = 0;
  uint64_t events = 0;
  bool traced = false;  // a trace file was written (RunOptions::trace_file)
  TraceEventStats trace;
};

// What a run writes besides its results; none of it changes them.
struct RunOptions {
  std::string trace_file;  // Chrome/Perfetto trace-event JSON (core/metrics/trace_events.hpp); empty: none
  TraceOptions trace;
  bool progress = false;   // a progress line on stderr while simulating (the caller checks it is a terminal)
  RunExtras extras;        // a fault baseline to compare with ("fault_impact")
  int threads = 1;         // SimOptions::threads (the native engine's link meter on a worker from 2)
};

// scenario_dir resolves relative trace paths; out_dir is created. Throws InputError on bad input and
// NoProgressError when requests can never finish.
RunOutcome run_scenario(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir,
                        const RunOptions& options = {});

}  // namespace dualpath::sim
