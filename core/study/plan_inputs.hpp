// What `dualpath plan` reads about each variant before and after it runs (cli/plan_cmd.cpp): whether the scenario
// suits the objective, each role's node price on the variant's hardware, and a JCT candidate's result.
#pragma once

#include <string>

#include "core/study/plan_report.hpp"
#include "core/analysis/plan_cost.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::study {

// InputError (at `where`) unless the scenario's arrivals suit the objective: JCT offline, capacity online with probes
// long enough for the stop rule.
void check_objective(const Scenario& sc, PlanObjective objective, const std::string& where);

// Sets vp's prefill and decode node prices from `prices` on the scenario's role topologies (mixed hardware: each its
// own); an InputError naming `option` (the flag and its text) and the topology it does not price.
void price_variant(const analysis::Prices& prices, const std::string& option, const Scenario& sc, VariantPlan& vp);

// A JCT candidate's result from its run folder (not ok when absent or incomplete).
Outcome read_outcome(const std::string& dir);

}  // namespace dualpath::study
