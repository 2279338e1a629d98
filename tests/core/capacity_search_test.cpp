// The capacity search against known thresholds: it brackets, bisects to the resolution, and uses its parallel
// probes; the answer never exceeds the true capacity and is within the resolution of it.
#include <gtest/gtest.h>

#include <set>
#include <string>

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

// Probe identity is exact (issue 68): every load the search proposes is its own kLoadDigits-digit name, so the
// verdict recorded is the named (simulated) rate's, and at the finest resolution each probe is a new name. A
// bracket that no named load can split ends the search as given up, not in a loop.
TEST(CapacitySearch, ProposesOnlyNamedLoadsAndEachOnce) {
  for (const int parallel : {1, 3}) {
    CapacitySearchSpec spec;
    spec.start = 0.123456789, spec.resolution = kMinResolution, spec.parallel = parallel;
    spec.seeds = {0.3141592653};
    CapacitySearch s(spec);
    std::set<std::string> names;
    for (auto loads = s.next(); !loads.empty(); loads = s.next())
      for (double l : loads) {
        EXPECT_EQ(l, named_load(l)) << load_text(l);
        EXPECT_TRUE(names.insert(load_text(l)).second) << "two probes named " << load_text(l);
        s.record(l, l <= 0.7777777777);
      }
    EXPECT_FALSE(s.gave_up());
    EXPECT_LE((*s.lowest_failing() - s.capacity()) / s.capacity(), kMinResolution);
    EXPECT_LE(s.capacity(), 0.7777777777);
  }
  EXPECT_EQ(load_text(0.3141592653), "0.314159");
  EXPECT_EQ(named_load(1.0000004), 1.0);
  // Below the naming's precision (a resolution the CLI refuses): the search stops as given up.
  CapacitySearchSpec fine;
  fine.start = 1, fine.resolution = 1e-9;
  CapacitySearch f(fine);
  f.record(1.0, true);
  f.record(1.00001, false);
  EXPECT_TRUE(f.next().empty());
  EXPECT_TRUE(f.gave_up());
}
