// The paper's placement (§6.1): Algorithm 1 picks prefill engines (pe_selection.hpp); decode requests are routed
// to the decode group with the fewest unfinished tokens, counting those routed but not yet placed, then placed by
// the two-level DE selection (de_selection.hpp).
#pragma once

#include <cstdint>
#include <map>

#include "core/sched/engine_placement.hpp"

namespace dualpath {

class SchedulerPlacement final : public EnginePlacement {
 public:
  std::vector<Placement> place_prefill(const ClusterView& view, int group,
                                       const std::deque<QueuedRequest>& waiting) override;
  std::vector<int> route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) override;
  std::vector<Placement> place_decode(const ClusterView& view, int group,
                                      const std::deque<QueuedRequest>& queue) override;
  void unrouted(int group, const QueuedRequest& request) override { queued_tokens_[group] -= request.tokens; }

 private:
  std::map<int, int64_t> queued_tokens_;  // per decode group: tokens routed to it and not yet placed
};

}  // namespace dualpath
