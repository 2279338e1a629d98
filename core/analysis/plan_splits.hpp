// The P/D splits `dualpath plan` evaluates for a cluster of N nodes: every P + D = N with P, D >= 1, each with EP
// group sizes that fit it (the scenario's own size where it divides the side's GPUs, else one group spanning the
// side) and a verdict on whether the model's weights fit a GPU of those groups.
#pragma once

#include <string>
#include <vector>

#include "core/config/scenario.hpp"

namespace dualpath::analysis {

struct PdSplit {
  int P = 0, D = 0;
  int pe_group_gpus = 0, de_group_gpus = 0;
  bool feasible = true;
  std::string why;  // when not feasible
};

// Group size for a side of `nodes` nodes: `wanted` if it divides the side's GPUs, else the whole side.
int fitting_group(int wanted, int nodes, int gpus_per_node);

// The largest cluster a plan splits (--nodes, or --budget's nodes): far beyond any deployment (the paper's largest
// is 144 nodes), and small enough that enumerating its splits costs nothing before the candidate limit refuses it.
inline constexpr int kMaxPlanNodes = 100000;

std::vector<PdSplit> enumerate_splits(const Scenario& sc, int nodes);

}  // namespace dualpath::analysis
