// Inter-engine PE selection, Algorithm 1 of the paper (§6.1): engines with tok <= beta are eligible; among them
// those whose node has a short storage read queue (<= alpha tokens) are preferred, and within a class the engine
// with the fewest unfinished tokens wins. Overloaded engines (tok > beta) get nothing; when no engine is
// eligible the fetch ends. Only tok is updated inside the loop, as in the paper.
#pragma once

#include <deque>
#include <vector>

#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

std::vector<Placement> select_prefill_engines(const ClusterView& view, const std::vector<int>& group,
                                              const std::deque<QueuedRequest>& waiting);

}  // namespace dualpath
