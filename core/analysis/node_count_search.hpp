// The inverse planning question (`dualpath plan --target-aps X`, docs/capacity.md): the fewest nodes whose cluster
// holds a load. Pure: the caller decides each node count (does some P/D split of that many nodes meet the SLO at
// X?) and records the verdict. From the smallest count it doubles until a count holds, then bisects between the
// largest count that failed and the smallest that held, so the answer comes with its bracket: N-1 nodes fail
// (every split was probed or ruled out) and N hold. With a floor F (every split of every count below F ruled out by
// a bound, core/study/plan_bounds.hpp), F - 1 fails unprobed and the search starts at F, then doubles its distance
// above F (F, F + 1, F + 2, F + 4, F + 8, ...): a tight bound puts the answer a count or two above its floor. Assumes holding is monotone in the node count (more nodes never lose a load
// that fewer held), which the bracket's two verdicts show at the answer.
#pragma once

#include <map>
#include <optional>

namespace dualpath::analysis {

class NodeCountSearch {
 public:
  NodeCountSearch(int min_nodes, int max_nodes, int floor = 0) : min_(min_nodes), max_(max_nodes), floor_(floor) {
    if (floor_ > min_) record(std::min(floor_, max_ + 1) - 1, false);
  }

  // The next node count to decide, or nothing when the search is over.
  std::optional<int> next() const {
    const int lo = largest_failing().value_or(min_ - 1);
    const auto hi = answer();
    if (hi) return *hi - lo > 1 ? std::optional<int>((lo + *hi) / 2) : std::nullopt;
    if (lo >= max_) return std::nullopt;  // nothing up to the largest count holds
    if (lo < min_) return min_;
    if (floor_ <= min_) return std::min(max_, 2 * lo);
    return std::min(max_, lo < floor_ ? floor_ : floor_ + std::max(1, 2 * (lo - floor_)));
  }
  void record(int nodes, bool holds) { verdicts_[nodes] = holds; }

  // The smallest count that held (nothing: none up to max_nodes).
  std::optional<int> answer() const {
    for (const auto& [n, holds] : verdicts_)
      if (holds) return n;
    return std::nullopt;
  }
  // The largest count that failed below the answer (nothing: none failed, or the answer is the smallest count).
  std::optional<int> largest_failing() const {
    const auto hi = answer();
    std::optional<int> lo;
    for (const auto& [n, holds] : verdicts_)
      if (!holds && (!hi || n < *hi)) lo = n;
    return lo;
  }
  const std::map<int, bool>& verdicts() const { return verdicts_; }

 private:
  int min_, max_, floor_;
  std::map<int, bool> verdicts_;
};

}  // namespace dualpath::analysis
