// summary.json's "fault_impact" (`dualpath run --baseline`, docs/faults.md): the headline metrics of a run with
// faults beside the same run without them, and their relative change.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/metrics/summary.hpp"

namespace dualpath {

// {"baseline": folder, "<metric>": {"with_faults", "without", "change"}} for JCT, TTFT p50/p99, TPOT p50 and the
// fraction meeting both SLOs; change = with/without - 1 (0 when without is 0).
nlohmann::json fault_impact(const RunSummary& with_faults, const RunSummary& without,
                            const std::string& baseline_folder);

// The baseline run's results, read back from <folder>/summary.json (read_run_file: std::runtime_error naming the
// file when it cannot be read or is not a run's summary).
RunSummary baseline_results(const std::string& folder);

}  // namespace dualpath
