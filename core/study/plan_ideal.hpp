// `plan --objective capacity --ideal` (issue 65): beside each variant's best split, how far it is from ideal on the
// same nodes: the Oracle's capacity (a cluster whose KV loads are free: policy "oracle", no storage reads and no KV
// transfers), searched like the splits' own, and the §4.2 read bound: the hit-KV bytes per second the split's links
// can carry (core/analysis/bandwidth_model.hpp, the policy's read paths) over the bytes an agent read from storage
// in its probe at the capacity (exact when every agent of that probe finished; low, so the bound high, otherwise). "holds 1.2 APS; with free KV loads it would hold 1.6; its SNICs bound it at 1.4".
#pragma once

#include <string>
#include <vector>

#include "core/study/plan_capacity.hpp"
#include "core/study/plan_report.hpp"

namespace dualpath::study {

// Fills each variant's `ideal` (the variants whose splits all failed get none). The Oracle's probes go to
// SPLIT/oracle/ (a rerun takes them as given); `overrides` are the user's --set values.
void find_ideal(const CapacityPlanSpec& spec, const std::vector<std::string>& overrides,
                std::vector<VariantPlan>& plans);

// plan.json's "ideal" of the best split, and the line printed under its variant's table.
nlohmann::json ideal_json(const IdealFigures& f);
void print_ideal(const VariantPlan& vp);

// The read bound of a split whose agents read `read_per_agent` bytes from storage each (NaN when unknown), and in
// `link` the links full first at the best read mix.
double read_bound_aps(const VariantPlan& vp, const analysis::PdSplit& s, double read_per_agent, std::string& link);

}  // namespace dualpath::study
