// plan --band (docs/calibration.md, "The band"): the plan once per calibration, its answer as a range.
#pragma once

#include <optional>
#include <string>

#include "core/config/scenario.hpp"

namespace dualpath::cli {

// Runs `plan` once per calibration of `band` into `out`/<calibration>/ (cli/band.hpp), then prints the fewest nodes
// holding `target_aps` (when given) or the recommended split's figure (APS when `capacity`, else JCT) as a range,
// with the calibration, split and binding resource at each end; writes `out`/band.json.
void plan_band(const std::string& band, const std::string& out, std::optional<double> target_aps, bool capacity,
               const Scenario& base);

}  // namespace dualpath::cli
