// Two-level DE selection (§6.1). Phase 1 routes each request of the global decode queue to the decode group
// with the fewest unfinished tokens. Phase 2, when a group fetches: engines whose free HBM fits the request are
// split by the high-token threshold Z = z * (sum of tokens of the HBM-fitting queue prefix + sum of the group's
// tokens) / |group|; below Z the engine with the fewest requests wins, otherwise the one with the fewest tokens.
// The fetch ends at the first request that fits no engine (the queue stays FIFO).
#pragma once

#include <deque>
#include <vector>

#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

std::vector<int> route_to_decode_groups(const ClusterView& view, const std::deque<QueuedRequest>& global,
                                        const std::vector<int64_t>& queued_tokens_per_group);
std::vector<Placement> select_decode_engines(const ClusterView& view, const std::vector<int>& group,
                                             const std::deque<QueuedRequest>& queue);

}  // namespace dualpath
