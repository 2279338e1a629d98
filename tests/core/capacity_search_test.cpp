// The capacity search against known thresholds: it brackets, bisects to the resolution, and uses its parallel
// probes; the answer never exceeds the true capacity and is within the resolution of it.
#include <gtest/gtest.h>

#include "core/analysis/capacity_search.hpp"

using namespace dualpath::analysis;

namespace {
// Runs the search against "meets iff load <= threshold"; returns the search and the rounds it took.
std::pair<CapacitySearch, int> search(double threshold, CapacitySearchSpec spec) {
  CapacitySearch s(spec);
  int rounds = 0;
  for (auto loads = s.next(); !loads.empty(); loads = s.next(), ++rounds) {
    EXPECT_LE(static_cast<int>(loads.size()), spec.parallel);
    for (double l : loads) s.record(l, l <= threshold);
  }
  return {s, rounds};
}
}  // namespace

TEST(CapacitySearch, FindsAThresholdAboveTheStartWithinTheResolution) {
  CapacitySearchSpec spec;
  spec.start = 1, spec.resolution = 0.02;
  const auto [s, rounds] = search(13.7, spec);
  EXPECT_LE(s.capacity(), 13.7);
  EXPECT_GE(s.capacity(), 13.7 / 1.02);
  EXPECT_FALSE(s.gave_up());
  EXPECT_GT(*s.lowest_failing(), 13.7);
}

TEST(CapacitySearch, FindsAThresholdBelowTheStart) {
  CapacitySearchSpec spec;
  spec.start = 10, spec.resolution = 0.05;
  const auto [s, rounds] = search(0.3, spec);
  EXPECT_LE(s.capacity(), 0.3);
  EXPECT_GE(s.capacity(), 0.3 / 1.05);
}

TEST(CapacitySearch, ParallelProbesTakeFewerRounds) {
  CapacitySearchSpec one;
  one.start = 1, one.resolution = 0.01;
  CapacitySearchSpec four = one;
  four.parallel = 4;
  const auto [s1, r1] = search(37.2, one);
  const auto [s4, r4] = search(37.2, four);
  EXPECT_LT(r4, r1);
  EXPECT_GE(s4.capacity(), 37.2 / 1.01);
  EXPECT_LE(s4.capacity(), 37.2);
}

TEST(CapacitySearch, NothingMeetsMeansZeroAndGivingUp) {
  CapacitySearchSpec spec;
  spec.start = 1, spec.min_load = 0.01;
  const auto [s, rounds] = search(0.001, spec);
  EXPECT_EQ(s.capacity(), 0);
  EXPECT_TRUE(s.gave_up());
}

TEST(CapacitySearch, NonMonotoneVerdictsKeepTheCapacityBelowTheLowestFailure) {
  CapacitySearch s(CapacitySearchSpec{});
  s.record(1, true);
  s.record(2, false);
  s.record(4, true);  // noise above a failure does not raise the capacity
  EXPECT_EQ(s.capacity(), 1);
  EXPECT_EQ(*s.lowest_failing(), 2);
}
