#include "core/sched/de_selection.hpp"

#include <limits>
#include <stdexcept>
#include "core/mutation/mutant.hpp"

namespace dualpath {

std::vector<int> route_to_decode_groups(const ClusterView& view, const std::deque<QueuedRequest>& global,
                                        const std::vector<int64_t>& queued_tokens_per_group) {
  // Group load = tokens of its engines + tokens already routed to it and not yet placed; updated per request
  // so that one drain spreads a burst instead of sending it all to the same group.
  // A group none of whose engines can take a request (a node-down fault took them) is never chosen.
  std::vector<int64_t> load(view.de_groups.size(), 0);
  std::vector<bool> open(view.de_groups.size(), false);
  size_t first_open = view.de_groups.size();
  for (size_t g = 0; g < view.de_groups.size(); ++g) {
    for (int e : view.de_groups[g]) load[g] += view.engines[e].tok, open[g] = open[g] || view.engines[e].can_take;
    load[g] += queued_tokens_per_group[g];
    if (open[g] && first_open == view.de_groups.size()) first_open = g;
  }
  std::vector<int> out;
  out.reserve(global.size());
  if (first_open == view.de_groups.size() && !global.empty())  // the cluster stops before this (node_down)
    throw std::logic_error("decode routing: no decode group has an engine that can take a request");
  for (const auto& r : global) {
    size_t best = first_open;
    for (size_t g = first_open + 1; g < load.size(); ++g)
      if (open[g] && load[g] < load[best] && !mutant("de_group_first")) best = g;
    load[best] += r.tokens;
    out.push_back(static_cast<int>(best));
  }
  return out;
}

std::vector<Placement> select_decode_engines(const ClusterView& view, const std::vector<int>& group,
                                             const std::deque<QueuedRequest>& queue) {
  const size_t n = group.size();
  std::vector<int64_t> tok(n);
  std::vector<int> seq(n);
  std::vector<double> free(n);
  double free_total = 0;
  int64_t group_tok = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& e = view.engines[group[i]];
    tok[i] = e.tok, seq[i] = e.seq, free[i] = e.hbm.free();
    free_total += free[i];
    group_tok += e.tok;
  }
  // R: the longest queue prefix whose KV fits the group's total free HBM (no fragmentation assumed).
  int64_t prefix_tok = 0;
  double need_total = 0;
  for (const auto& r : queue) {
    if (need_total + r.hbm_need > free_total) break;
    need_total += r.hbm_need;
    prefix_tok += r.tokens;
  }
  const double z = view.z_factor * static_cast<double>(prefix_tok + group_tok) / static_cast<double>(n);

  std::vector<Placement> out;
  for (size_t q = 0; q < queue.size(); ++q) {
    const auto& r = queue[q];
    int best_low = -1, best_high = -1;
    for (size_t i = 0; i < n; ++i) {
      if (free[i] < r.hbm_need) continue;
      if (static_cast<double>(tok[i] + r.tokens) <= z) {
        if (best_low < 0 || seq[i] < seq[best_low]) best_low = static_cast<int>(i);
      } else if (best_high < 0 || tok[i] < tok[best_high]) {
        best_high = static_cast<int>(i);
      }
    }
    const int pick = best_low >= 0 ? best_low : best_high;
    if (pick < 0) break;  // fits no engine: end the fetch
    tok[pick] += r.tokens, seq[pick] += 1, free[pick] -= r.hbm_need;
    out.push_back({q, group[pick]});
  }
  return out;
}

}  // namespace dualpath
