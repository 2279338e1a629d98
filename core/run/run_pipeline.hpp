// One run, the same on every body (sim/: a simulator; hw/: storage, transport and GPUs): agents from the
// workload, the Cluster over the body's backend, requests folded as they settle, the backend driven to its end,
// then summary.json (the common keys, the online stop rule, the body's own keys, and with a fault baseline
// "fault_impact"), requests.csv, waits.csv, links.csv and perf.json. A body only builds its backend and says,
// through RunBody, what it adds; sim/run_scenario.cpp and hw/run_hw.cpp are its two bodies.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/metrics/summary.hpp"
#include "core/run/link_report.hpp"

namespace dualpath {

class Backend;
class Cluster;
class RunRecords;

// What a body adds to the common run. The pipeline calls, in order: backend(), attach(), drive(), stalled()
// (only when the backend ran out of work before every round was done), links(), add_sections(), finish(),
// perf_counts().
class RunBody {
 public:
  virtual ~RunBody() = default;
  // The backend the Cluster runs on; built by the body before the pipeline starts.
  virtual Backend& backend() = 0;
  // Whether the Cluster frees requests once handed over (false when something reads them all after the run).
  virtual bool frees_settled() const { return true; }
  // Before the run: the sinks and logs the body attaches to the Cluster or streams through the records.
  virtual void attach(Cluster& cluster, RunRecords& records) {
    (void)cluster;
    (void)records;
  }
  struct DriveEnd {
    bool cut_short = false;           // the run was stopped (time limit, stop rule, an error), not out of work
    std::vector<std::string> errors;  // errors that did not end the process (hw: storage, transport)
  };
  // Runs the backend until it is out of work or stopped; `start` starts the Cluster from the backend's loop.
  virtual DriveEnd drive(Cluster& cluster) = 0;
  // The backend ran out of work with rounds left (`report`: Cluster::stall_report). Throws (sim: NoProgressError)
  // or adds an error the summary reports (hw).
  virtual void stalled(const std::string& report, std::vector<std::string>& errors) = 0;
  // The link figures over the run; `results` gives the run's span.
  virtual const LinkReport& links(const RunSummary& results) = 0;
  // summary.json's body keys, before the common ones are assembled (so that errors added here count against
  // "complete"); `summary` holds the keys to merge.
  virtual void add_sections(nlohmann::json& summary, const Cluster& cluster, std::vector<std::string>& errors) {
    (void)summary;
    (void)cluster;
    (void)errors;
  }
  // After the run folder is written: what the body writes from the whole run (sim: the trace file).
  virtual void finish(const Cluster& cluster) { (void)cluster; }
  // perf.json's body counters (events, transfers), beside the version and the wall and simulated seconds.
  virtual nlohmann::json perf_counts() const { return nlohmann::json::object(); }
  // The backend's clock at the end of the run (perf.json's simulated_s).
  virtual double end_time() const = 0;
};

// What the caller adds that is not the body's: a run of the same scenario without its faults, to compare with.
struct RunExtras {
  std::optional<std::string> fault_baseline;  // its run folder (summary.json read back) -> "fault_impact"
};

struct RunResult {
  nlohmann::json summary;           // what summary.json holds
  std::vector<std::string> errors;  // why the run is not complete (empty when it is, or on the simulator)
  double wall_seconds = 0;
  double simulated_seconds = 0;
};

// scenario_dir resolves relative trace paths; out_dir is created first (a bad --out costs nothing). Throws
// InputError on bad input; what the body's drive() and stalled() throw passes through.
RunResult run_pipeline(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir,
                       RunBody& body, const RunExtras& extras = {});

}  // namespace dualpath
