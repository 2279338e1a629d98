#include "core/analysis/plan_splits.hpp"

#include "core/cost/cost_model.hpp"

namespace dualpath::analysis {

int fitting_group(int wanted, int nodes, int gpus_per_node) {
  const int gpus = nodes * gpus_per_node;
  return wanted > 0 && gpus % wanted == 0 ? wanted : gpus;
}

std::vector<PdSplit> enumerate_splits(const Scenario& sc, int nodes) {
  std::vector<PdSplit> out;
  const int g = sc.topology.gpus_per_node;
  for (int P = 1; P < nodes; ++P) {
    PdSplit s;
    s.P = P, s.D = nodes - P;
    s.pe_group_gpus = fitting_group(sc.deployment.pe_group_gpus, s.P, g);
    s.de_group_gpus = fitting_group(sc.deployment.de_group_gpus, s.D, g);
    for (const auto& [side, group] : {std::pair<const char*, int>{"prefill", s.pe_group_gpus}, {"decode", s.de_group_gpus}}) {
      if (!s.feasible) break;
      s.why = weights_fit_problem(sc, side, group);
      s.feasible = s.why.empty();
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace dualpath::analysis
