// Round-robin placement (the paper's Basic): every request's prefill engine, and its decode engine, is the next one
// in global engine order, fixed the first time a fetch sees it. A prefill group's fetch takes the requests targeted
// at its engines; a decode request waits (FIFO) until its target engine has HBM room.
#pragma once

#include <cstdint>
#include <map>

#include "core/sched/engine_placement.hpp"

namespace dualpath {

class RoundRobinPlacement final : public EnginePlacement {
 public:
  std::vector<Placement> place_prefill(const ClusterView& view, int group,
                                       const std::deque<QueuedRequest>& waiting) override;
  std::vector<int> route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) override;
  std::vector<Placement> place_decode(const ClusterView& view, int group,
                                      const std::deque<QueuedRequest>& queue) override;

 private:
  size_t pe_cursor_ = 0, de_cursor_ = 0;
  std::map<int64_t, int> pe_target_, de_target_;  // request id -> engine, until placed
  std::map<int, double> taken_;                   // HBM promised during one decode fetch
};

}  // namespace dualpath
