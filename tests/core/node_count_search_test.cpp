// The inverse planning search (core/analysis/node_count_search.hpp) against known thresholds: it finds the fewest
// nodes holding a load, with the count below failing, in a logarithmic number of decisions; and says when nothing up
// to the largest count holds.
#include <gtest/gtest.h>

#include "core/analysis/node_count_search.hpp"

using dualpath::analysis::NodeCountSearch;

namespace {
// Runs the search against "holds iff nodes >= threshold"; returns it and the counts it decided.
std::pair<NodeCountSearch, int> search(int threshold, int max_nodes) {
  NodeCountSearch s(2, max_nodes);
  int decided = 0;
  while (const auto n = s.next()) {
    EXPECT_FALSE(s.verdicts().count(*n)) << "decided " << *n << " twice";
    s.record(*n, *n >= threshold);
    ++decided;
  }
  return {s, decided};
}
}  // namespace

TEST(NodeCountSearch, FindsTheFewestNodesWithTheCountBelowFailing) {
  for (int threshold = 2; threshold <= 100; ++threshold) {
    const auto [s, decided] = search(threshold, 128);
    ASSERT_TRUE(s.answer()) << threshold;
    EXPECT_EQ(*s.answer(), threshold);
    if (threshold > 2) EXPECT_EQ(*s.largest_failing(), threshold - 1);
    else EXPECT_FALSE(s.largest_failing());
    EXPECT_LE(decided, 2 * 7 + 1) << threshold;  // doubling to 128 and bisecting: about 2 log2(threshold)
  }
}

TEST(NodeCountSearch, NothingHoldsUpToTheLargestCount) {
  const auto [s, decided] = search(1000, 48);
  EXPECT_FALSE(s.answer());
  EXPECT_EQ(*s.largest_failing(), 48);  // 2, 4, 8, 16, 32, 48: the largest count was tried
  EXPECT_EQ(decided, 6);
}
