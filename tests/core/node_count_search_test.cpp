// The inverse planning search (core/analysis/node_count_search.hpp) against known thresholds: it finds the fewest
// nodes holding a load, with the count below failing, in a logarithmic number of decisions; and says when nothing up
// to the largest count holds.
#include <gtest/gtest.h>

#include <vector>

#include "core/analysis/node_count_search.hpp"

using dualpath::analysis::NodeCountSearch;

namespace {
// Runs the search against "holds iff nodes >= threshold"; returns it and the counts it decided.
std::pair<NodeCountSearch, int> search(int threshold, int max_nodes, int floor = 0) {
  NodeCountSearch s(2, max_nodes, floor);
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

TEST(NodeCountSearch, FromAFloorEveryThresholdAtOrAboveIt) {
  // Counts below the floor fail unprobed (a bound ruled out their every split); the answer is the same.
  for (int floor = 3; floor <= 40; ++floor)
    for (int threshold = floor; threshold <= 100; ++threshold) {
      const auto [s, decided] = search(threshold, 128, floor);
      ASSERT_TRUE(s.answer()) << floor << " " << threshold;
      EXPECT_EQ(*s.answer(), threshold);
      EXPECT_EQ(*s.largest_failing(), threshold - 1);
      EXPECT_EQ(s.verdicts().begin()->first, floor - 1) << "nothing below the floor's count below decided";
      EXPECT_LE(decided, 2 * 7 + 1) << floor << " " << threshold;
    }
}

TEST(NodeCountSearch, AFloorStartsThereAndGallops) {
  std::vector<int> order;
  NodeCountSearch s(2, 64, 9);
  EXPECT_EQ(*s.largest_failing(), 8);  // 8 nodes fail unprobed
  while (const auto n = s.next()) order.push_back(*n), s.record(*n, *n >= 14);
  EXPECT_EQ(order, (std::vector<int>{9, 10, 11, 13, 17, 15, 14}));  // 9, + 1, + 2, + 4, + 8, then the bisection
  // A floor at the answer takes one decision; one above the largest count takes none.
  NodeCountSearch at(2, 64, 9);
  at.record(*at.next(), true);
  EXPECT_FALSE(at.next());
  EXPECT_EQ(*at.answer(), 9);
  EXPECT_EQ(*at.largest_failing(), 8);
  NodeCountSearch above(2, 16, 20);
  EXPECT_FALSE(above.next());
  EXPECT_FALSE(above.answer());
  EXPECT_EQ(*above.largest_failing(), 16);
}
