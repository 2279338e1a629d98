// The EP all-to-all of lockstep units (ep_all_to_all.hpp).
#include "core/cluster/ep_all_to_all.hpp"

#include <algorithm>

namespace dualpath {

// One model-traffic flow per GPU to the GPU at the same position on the next node of the group. Engine i carries
// max(load_i, mean load) x per_load x rdma x layers bytes: its own tokens, or the group's mean where expert routing
// brings it more than its own (every engine waits for the busiest at each layer).
EpAllToAll::Flows EpAllToAll::flows(const std::vector<int>& engines, const std::vector<double>& loads,
                                    double per_load, double rdma, int layers) {
  Flows out;
  if (rdma <= 0) return out;
  double total = 0;
  for (double x : loads) total += x;
  const double mean = total / static_cast<double>(engines.size());
  for (size_t i = 0; i < engines.size(); ++i) {
    const double bytes = std::max(loads[i], mean) * per_load * rdma * layers;
    if (bytes > 0) out.emplace_back(i, bytes);
  }
  return out;
}

void EpAllToAll::start(const std::vector<int>& engines, const Flows& flows, Done done) {
  if (flows.empty()) return;
  std::vector<Backend::GroupPart> parts;
  parts.reserve(flows.size());
  for (const auto& [i, bytes] : flows) {
    totals_.collective += bytes;
    parts.push_back({Place{Loc::Hbm, engines[i]}, Place{Loc::Hbm, cross_node_peer(engines[i], engines)}, bytes});
  }
  // The step waits for its slowest flow; the flows between are nobody's event (Backend::transfer_group).
  be_.transfer_group(Hop::Collective, parts, TrafficClass::Model, std::move(done));
}

int EpAllToAll::cross_node_peer(int gpu, const std::vector<int>& group) const {
  if (static_cast<int>(group.size()) <= gpus_per_node_) return -1;  // collectives stay on NVLink
  const auto it = std::find(group.begin(), group.end(), gpu);
  const size_t i = static_cast<size_t>(it - group.begin());
  return group[(i + gpus_per_node_) % group.size()];
}

}  // namespace dualpath
