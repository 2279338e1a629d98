#include "core/analysis/plan_splits.hpp"

#include <sstream>

#include "core/cost/cost_model.hpp"

namespace dualpath::analysis {

int fitting_group(int wanted, int nodes, int gpus_per_node) {
  const int gpus = nodes * gpus_per_node;
  return wanted > 0 && gpus % wanted == 0 ? wanted : gpus;
}

std::vector<PdSplit> enumerate_splits(const Scenario& sc, int nodes) {
  std::vector<PdSplit> out;
  const int g = sc.topology.gpus_per_node;
  const CostModel cost(sc.model, sc.topology.gpu);
  for (int P = 1; P < nodes; ++P) {
    PdSplit s;
    s.P = P, s.D = nodes - P;
    s.pe_group_gpus = fitting_group(sc.deployment.pe_group_gpus, s.P, g);
    s.de_group_gpus = fitting_group(sc.deployment.de_group_gpus, s.D, g);
    for (const auto& [side, group] : {std::pair<const char*, int>{"prefill", s.pe_group_gpus}, {"decode", s.de_group_gpus}}) {
      const double w = cost.weight_bytes_per_gpu(group);
      if (s.feasible && w >= sc.topology.gpu.hbm_bytes) {
        std::ostringstream m;
        m << "the " << side << " side's groups of " << group << " GPUs hold " << w / 1e9 << " GB of weights per GPU, "
          << "more than its " << sc.topology.gpu.hbm_bytes / 1e9 << " GB of HBM";
        s.feasible = false;
        s.why = m.str();
      }
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace dualpath::analysis
