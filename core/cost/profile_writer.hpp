// The roofline's own step times written as a step profile (core/cost/step_profile.hpp): what `dualpath analyze
// cost --write-profile` writes, what the profile-equals-roofline test runs, and the start of a profile a user edits
// with measured numbers. The grids are fine enough that interpolating them reproduces the roofline's runs (docs:
// within 1% of JCT) and cover the shapes the bundled workloads reach.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cost/cost_model.hpp"

namespace dualpath {

// One prefill table per size in `pe_groups`, one decode table per size in `de_groups`; decode times multiplied by
// `decode_scale` (1 = the roofline's own).
nlohmann::json roofline_profile(const CostModel& cost, const Topology& topology, const std::vector<int>& pe_groups,
                                const std::vector<int>& de_groups, const std::string& label, double decode_scale = 1);

}  // namespace dualpath
