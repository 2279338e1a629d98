#include "core/sched/pe_selection.hpp"
#include "core/mutation/mutant.hpp"

#include <limits>

namespace dualpath {

std::vector<Placement> select_prefill_engines(const ClusterView& view, const std::vector<int>& group,
                                              const std::deque<QueuedRequest>& waiting) {
  std::vector<Placement> out;
  std::vector<int64_t> tok(group.size());
  for (size_t i = 0; i < group.size(); ++i) tok[i] = view.engines[group[i]].tok;

  const bool first = mutant("pe_pick_first");  // take the first engine that qualifies, not the least loaded
  for (size_t q = 0; q < waiting.size(); ++q) {
    int best_short = -1, best_long = -1;
    int64_t tok_short = std::numeric_limits<int64_t>::max(), tok_long = tok_short;
    // Ties (e.g. idle engines, all at 0 tokens) go to the first engine from the request's id on, not always to
    // the group's first: each PE GPU sends its KV over its own rail, so a fixed tie-break would pile traffic on
    // rail 0 of every node.
    const size_t start = static_cast<size_t>(waiting[q].id) % group.size();
    for (size_t k = 0; k < group.size(); ++k) {
      const size_t i = (start + k) % group.size();
      if (tok[i] > view.beta_tokens) continue;  // C1: overloaded
      const auto& e = view.engines[group[i]];
      const bool short_queue = view.nodes[e.node].read_queue_tokens <= view.alpha_tokens;
      if (short_queue && (first ? best_short < 0 : tok[i] < tok_short)) tok_short = tok[i], best_short = static_cast<int>(i);
      if (!short_queue && (first ? best_long < 0 : tok[i] < tok_long)) tok_long = tok[i], best_long = static_cast<int>(i);
    }
    const int pick = best_short >= 0 ? best_short : best_long;  // C2 before C3
    if (pick < 0) break;
    tok[pick] += waiting[q].tokens;
    out.push_back({q, group[pick]});
  }
  return out;
}

}  // namespace dualpath
