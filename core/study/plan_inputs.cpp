#include "core/study/plan_inputs.hpp"

#include <exception>

#include "core/study/probe.hpp"
#include "core/study/probe_runner.hpp"
#include "core/config/input_error.hpp"
#include "core/run/summary_sections.hpp"

namespace dualpath::study {

void price_variant(const analysis::Prices& prices, const std::string& option, const Scenario& sc, VariantPlan& vp) {
  auto price = [&](const Topology& t) {
    const auto p = prices.node_hour(t.name, t.gpus_per_node);
    if (!p) {
      throw InputError(option,
                       "no price for topology \"" + t.name + "\"" +
                           (vp.variant.label.empty() ? std::string() : " (variant " + vp.variant.label + ")") +
                           ": expected one price, or TOPOLOGY=PRICE for each topology the plan's nodes run on");
    }
    return *p;
  };
  vp.pe_node_hour = price(sc.pe_topology());
  vp.de_node_hour = price(sc.de_topology());
}

Outcome read_outcome(const std::string& dir) {
  Outcome o;
  try {
    const RunFile f = read_run_file(dir + "/summary.json");
    if (!f.complete) return o;
    o.value = f.results.jct;
    o.binds = f.ttft_binds;
    o.agents = static_cast<double>(f.results.agents);
    o.prompt_tokens_per_s = f.results.prompt_tokens_per_s;
    o.generated_tokens_per_s = f.results.generated_tokens_per_s;
    o.ok = true;
  } catch (const std::exception&) {
    o.ok = false;
  }
  return o;
}

void check_objective(const Scenario& sc, PlanObjective objective, const std::string& where) {
  const bool online = sc.workload.mode == ArrivalMode::Online;
  if (objective == PlanObjective::Jct && online)
    throw InputError(where + ": /workload/mode",
                     "objective jct needs an offline scenario (all agents at t = 0); use --objective capacity for an "
                     "online one");
  if (objective == PlanObjective::Capacity && !online)
    throw InputError(where + ": /workload/mode",
                     "objective capacity needs an online scenario (--set workload.mode=online --set workload.aps=A "
                     "--set workload.duration=T)");
  if (objective == PlanObjective::Capacity) check_probe_length(sc, where);
}


}  // namespace dualpath::study
