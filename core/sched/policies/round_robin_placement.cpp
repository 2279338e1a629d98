#include "core/sched/policies/round_robin_placement.hpp"

#include "core/mutation/mutant.hpp"

namespace dualpath {

namespace {

int nth_engine(const std::vector<std::vector<int>>& groups, size_t k) {
  for (const auto& g : groups) {
    if (k < g.size()) return g[k];
    k -= g.size();
  }
  return groups.front().front();
}

// The next engine in global order that can take a request (-1: none can, a fault has them all).
int next_engine(const ClusterView& view, const std::vector<std::vector<int>>& groups, size_t& cursor) {
  size_t total = 0;
  for (const auto& g : groups) total += g.size();
  for (size_t tries = 0; tries < total; ++tries) {
    const int e = nth_engine(groups, mutant("basic_no_round_robin") ? 0 : cursor++ % total);
    if (view.engines[e].can_take) return e;
  }
  return -1;
}

}  // namespace

std::vector<Placement> RoundRobinPlacement::place_prefill(const ClusterView& view, int group,
                                                          const std::deque<QueuedRequest>& waiting) {
  std::vector<Placement> out;
  for (size_t q = 0; q < waiting.size(); ++q) {
    auto it = pe_target_.find(waiting[q].id);
    if (it == pe_target_.end()) {
      const int target = next_engine(view, view.pe_groups, pe_cursor_);
      if (target < 0) break;  // no engine can take one now
      it = pe_target_.emplace(waiting[q].id, target).first;
    }
    const int e = it->second;
    if (!view.engines[e].can_take) {  // its engine lost its read path since: it is targeted again next time
      pe_target_.erase(it);
      continue;
    }
    bool mine = false;
    for (int x : view.pe_groups[group]) mine |= (x == e);
    if (mine) {
      out.push_back({q, e});
      pe_target_.erase(it);
    }
  }
  return out;
}

// Routes to the group of the next engine in global order, remembered per request.
std::vector<int> RoundRobinPlacement::route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) {
  std::vector<int> routes;
  for (const auto& r : global) {
    const int engine = next_engine(view, view.de_groups, de_cursor_);
    de_target_[r.id] = engine;
    routes.push_back(view.engines[engine].group);
  }
  return routes;
}

std::vector<Placement> RoundRobinPlacement::place_decode(const ClusterView& view, int,
                                                         const std::deque<QueuedRequest>& queue) {
  std::vector<Placement> out;
  for (size_t q = 0; q < queue.size(); ++q) {
    const int e = de_target_.at(queue[q].id);
    if (view.engines[e].hbm.free() - taken_[e] < queue[q].hbm_need) break;
    taken_[e] += queue[q].hbm_need;
    out.push_back({q, e});
  }
  for (const auto& p : out) de_target_.erase(queue[p.index].id);
  taken_.clear();
  return out;
}

}  // namespace dualpath
