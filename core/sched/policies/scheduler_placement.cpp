#include "core/sched/policies/scheduler_placement.hpp"

#include <algorithm>
#include <iterator>

#include "core/sched/de_selection.hpp"
#include "core/sched/pe_selection.hpp"

namespace dualpath {

std::vector<Placement> SchedulerPlacement::place_prefill(const ClusterView& view, int group,
                                                         const std::deque<QueuedRequest>& waiting) {
  const auto& group_engines = view.pe_groups[group];
  const auto cannot = [&view](int e) { return !view.engines[e].can_take; };
  if (std::none_of(group_engines.begin(), group_engines.end(), cannot))
    return select_prefill_engines(view, group_engines, waiting);
  // A fault keeps some of them from loading KV (EngineState::can_take): place on the others.
  std::vector<int> engines;
  std::remove_copy_if(group_engines.begin(), group_engines.end(), std::back_inserter(engines), cannot);
  if (engines.empty()) return {};
  return select_prefill_engines(view, engines, waiting);
}

std::vector<int> SchedulerPlacement::route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) {
  std::vector<int64_t> queued(view.de_groups.size(), 0);
  for (auto& [g, t] : queued_tokens_) queued[g] = t;
  auto routes = route_to_decode_groups(view, global, queued);
  for (size_t i = 0; i < routes.size(); ++i) queued_tokens_[routes[i]] += global[i].tokens;
  return routes;
}

std::vector<Placement> SchedulerPlacement::place_decode(const ClusterView& view, int group,
                                                        const std::deque<QueuedRequest>& queue) {
  const auto& group_engines = view.de_groups[group];
  const auto cannot = [&view](int e) { return !view.engines[e].can_take; };
  std::vector<Placement> out;
  if (std::none_of(group_engines.begin(), group_engines.end(), cannot)) {
    out = select_decode_engines(view, group_engines, queue);
  } else {  // a node-down fault took some of them: place on the others
    std::vector<int> engines;
    std::remove_copy_if(group_engines.begin(), group_engines.end(), std::back_inserter(engines), cannot);
    if (!engines.empty()) out = select_decode_engines(view, engines, queue);
  }
  for (const auto& p : out) queued_tokens_[group] -= queue[p.index].tokens;
  return out;
}

}  // namespace dualpath
