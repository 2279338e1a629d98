// `dualpath hw run`: one scenario on the hardware body in single-process mode (the core on the calling thread,
// storage and transport workers on their own threads). Writes the simulator's formats with measured times:
// summary.json (plus "backend": "hw", "compute": "emulated" and an "hw" object saying what moved the bytes)
// and requests.csv.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "hw/hw_backend.hpp"

namespace dualpath::hw {

struct HwRunOutcome {
  nlohmann::json summary;
  bool ok = false;          // every round completed with no storage/transport error
  std::string failure;      // why not
  double wall_seconds = 0;
};

// scenario_dir resolves relative trace paths; out_dir is created. Throws InputError on bad input. A storage or
// transport error, or a stall, does not throw: the summary is still written with "complete": false and the
// errors, and the outcome says why.
HwRunOutcome run_hw_scenario(const Scenario& scenario, const std::string& scenario_dir, const std::string& out_dir,
                             const HwOptions& options);

}  // namespace dualpath::hw
