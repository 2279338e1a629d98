// A scheduling policy: inter-engine placement (PE and DE), read-path choice, and which mechanisms are on.
// Policies are looked up by name (policy_registry.hpp); adding one is one file that calls register_policy.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/config/scenario.hpp"
#include "core/engine/request.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

// Mechanisms the engines apply; the ablation toggles of PolicySpec override the policy's defaults.
struct PolicyFeatures {
  bool layerwise = true;   // layerwise prefill: one layer of the batch's KV in HBM, loads overlap compute
  bool dual_path = true;   // hit KV may be read by the DE node and forwarded over the compute network
  bool scheduler = true;   // Algorithm 1 + two-level DE selection (false: round-robin placement)
  bool bypass_io = false;  // oracle: storage reads, H2D/D2H and PE->DE KV transfers take no time
};

// One placement: request at position `index` of the queue that was passed in goes to engine `engine`.
struct Placement {
  size_t index;
  int engine;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual PolicyFeatures features() const = 0;
  // A prefill group's leader fetches: place requests of the global FIFO waiting queue on its engines.
  virtual std::vector<Placement> place_prefill(const ClusterView& view, int group,
                                               const std::deque<QueuedRequest>& waiting) = 0;
  // Phase 1 of decode placement: route each request of the global decode queue to a decode group.
  virtual std::vector<int> route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) = 0;
  // Phase 2: a decode group's leader fetches from its private queue.
  virtual std::vector<Placement> place_decode(const ClusterView& view, int group,
                                              const std::deque<QueuedRequest>& queue) = 0;
  // Read path of a request whose PE and DE are known.
  virtual ReadSide choose_read_side(const ClusterView& view, const Request& r) = 0;
};

using PolicyFactory = std::function<std::unique_ptr<Policy>(const PolicyFeatures&)>;

}  // namespace dualpath
