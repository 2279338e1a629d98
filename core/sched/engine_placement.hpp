// Inter-engine placement, one of the two parts of a policy (policy.hpp): which prefill engine takes a waiting
// request, which decode group and engine take a prefilled one. The paper's scheduler (Algorithm 1 and two-level DE
// selection, sched/policies/scheduler_placement.hpp) and round-robin (sched/policies/round_robin_placement.hpp)
// are the two built in; a policy picks one, so a new placement is one class.
#pragma once

#include <deque>
#include <vector>

#include "core/sched/cluster_view.hpp"

namespace dualpath {

// One placement: request at position `index` of the queue that was passed in goes to engine `engine`.
struct Placement {
  size_t index;
  int engine;
};

class EnginePlacement {
 public:
  virtual ~EnginePlacement() = default;
  // A prefill group's leader fetches: place requests of the global FIFO waiting queue on its engines.
  virtual std::vector<Placement> place_prefill(const ClusterView& view, int group,
                                               const std::deque<QueuedRequest>& waiting) = 0;
  // Phase 1 of decode placement: route each request of the global decode queue to a decode group.
  virtual std::vector<int> route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) = 0;
  // Phase 2: a decode group's leader fetches from its private queue.
  virtual std::vector<Placement> place_decode(const ClusterView& view, int group,
                                              const std::deque<QueuedRequest>& queue) = 0;
  // A request routed to `group` left its queue unplaced (the group lost engines with a node): it is routed again.
  virtual void unrouted(int /*group*/, const QueuedRequest& /*request*/) {}
};

}  // namespace dualpath
