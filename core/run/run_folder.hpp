// The run folder, written the same way for both bodies by the run pipeline (core/run/run_pipeline.hpp):
// summary.json, whose common keys are assembled here and to which the pipeline adds the online stop rule and the
// fault impact and each body its own keys (the hardware body its measured storage and node figures), then
// requests.csv, waits.csv and links.csv.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/metrics/summary.hpp"
#include "core/metrics/working_set.hpp"
#include "core/run/link_report.hpp"

namespace dualpath {

class Cluster;
class RunRecords;

// summary.json's keys common to both bodies. `complete`: every round done and (hardware) no error. `working_set`:
// online runs' (RunRecords::working_set).
nlohmann::json run_summary(const Scenario& sc, const Cluster& cluster, const RunSummary& rs,
                           const ZeroServiceReuse& reuse, const LinkReport& links, bool complete,
                           const std::optional<WorkingSet>& working_set);

// Writes requests.csv (streamed by `records` during the run), waits.csv, links.csv and last summary.json into
// `dir` (which must exist); throws std::runtime_error naming the file that could not be written.
void write_run_folder(const std::string& dir, const nlohmann::json& summary, RunRecords& records,
                      const Cluster& cluster, const LinkReport& links);

}  // namespace dualpath
