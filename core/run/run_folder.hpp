// The run folder, written the same way by both bodies (sim/run_scenario.cpp, hw/run_hw.cpp): summary.json, whose
// common keys are assembled here and to which each body adds its own (the simulator its online stop rule, the
// hardware body its measured storage and node figures), then requests.csv, waits.csv and links.csv.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/metrics/summary.hpp"
#include "core/run/link_report.hpp"

namespace dualpath {

class Cluster;

// summary.json's keys common to both bodies. `complete`: every round done and (hardware) no error.
nlohmann::json run_summary(const Scenario& sc, const Cluster& cluster, const RunSummary& rs,
                           const ZeroServiceReuse& reuse, const LinkReport& links, bool complete);

// Writes summary.json, requests.csv, waits.csv and links.csv into `dir` (which must exist); throws
// std::runtime_error naming the file that could not be written.
void write_run_folder(const std::string& dir, const nlohmann::json& summary, const Cluster& cluster,
                      const LinkReport& links);

}  // namespace dualpath
