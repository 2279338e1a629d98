// The joint capacity search (plan's capacity objective) against known thresholds: every kept candidate is found
// within the resolution, a candidate that cannot be its group's best is dropped with a correct upper bound, equal
// capacities stay a tie (overlapping brackets), seeding from a neighbour spends fewer probes than searching each
// candidate alone, and the rounds are deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "core/analysis/joint_capacity_search.hpp"
#include "core/analysis/vary_grid.hpp"

using namespace dualpath::analysis;

namespace {

struct Outcome {
  JointCapacitySearch search;
  int rounds = 0, probes = 0;
  std::vector<std::vector<JointProbe>> log;
};

// Runs the search against "candidate c meets iff load <= threshold[c]".
Outcome run(const std::vector<double>& threshold, const std::vector<JointCandidate>& cands, JointSearchSpec spec,
            int slots) {
  Outcome o{JointCapacitySearch(spec, cands), 0, 0, {}};
  for (auto probes = o.search.next(slots); !probes.empty(); probes = o.search.next(slots)) {
    EXPECT_LE(static_cast<int>(probes.size()), slots);
    ++o.rounds;
    o.probes += static_cast<int>(probes.size());
    for (const auto& p : probes) o.search.record(p.candidate, p.load, p.load <= threshold[p.candidate]);
    o.log.push_back(probes);
    if (o.rounds > 200) break;
  }
  return o;
}

std::vector<JointCandidate> one_group(size_t n) { return std::vector<JointCandidate>(n); }

}  // namespace

TEST(JointCapacitySearch, FindsTheBestWithinTheResolutionAndDropsTheRest) {
  // The lead (the middle of four equal priors) is candidate 1, not the best.
  const std::vector<double> thr = {2.33, 1.1, 1.7, 0.6};
  JointSearchSpec spec;
  spec.start = 1, spec.resolution = 0.05;
  const auto o = run(thr, one_group(4), spec, 2);
  const auto& s = o.search;
  for (size_t c = 0; c < thr.size(); ++c) {
    EXPECT_TRUE(s.final(c)) << c;
    EXPECT_LE(s.capacity(c), thr[c]) << c;  // never above the truth
    if (s.lowest_failing(c)) {
      EXPECT_GT(*s.lowest_failing(c), thr[c]) << c;
    }
  }
  EXPECT_EQ(s.state(0), JointCapacitySearch::State::Done);
  EXPECT_GE(s.capacity(0), 2.33 / 1.05);
  ASSERT_TRUE(s.lowest_failing(0));
  EXPECT_LE((*s.lowest_failing(0) - s.capacity(0)) / s.capacity(0), 0.05);
  // The others cannot beat candidate 0: each ends with an upper bound at or below its capacity.
  for (size_t c : {1u, 2u, 3u}) {
    ASSERT_TRUE(s.lowest_failing(c)) << c;
    EXPECT_LE(*s.lowest_failing(c), s.capacity(0)) << c;
  }
  EXPECT_EQ(s.state(2), JointCapacitySearch::State::Dropped);
  EXPECT_EQ(s.state(3), JointCapacitySearch::State::Dropped);
  EXPECT_EQ(s.dropped_below(3), std::optional<size_t>(0));
}

TEST(JointCapacitySearch, EqualCapacitiesStayATie) {
  // Two splits with the same capacity (DualPath inside the §4.2 range): both are bisected to the resolution and
  // their brackets overlap, so neither is ahead.
  const std::vector<double> thr = {2.33306, 2.33306, 1.2};
  JointSearchSpec spec;
  spec.start = 1, spec.resolution = 0.05;
  const auto o = run(thr, one_group(3), spec, 2);
  const auto& s = o.search;
  ASSERT_EQ(s.state(0), JointCapacitySearch::State::Done);
  ASSERT_EQ(s.state(1), JointCapacitySearch::State::Done);
  EXPECT_FALSE(capacity_ahead(s.capacity(0), *s.lowest_failing(1)));
  EXPECT_FALSE(capacity_ahead(s.capacity(1), *s.lowest_failing(0)));
  EXPECT_EQ(s.state(2), JointCapacitySearch::State::Dropped);
}

TEST(JointCapacitySearch, SeedingFromANeighbourSpendsFewerProbesThanSearchingAlone) {
  const std::vector<double> thr = {2.3, 2.33, 2.31, 2.2, 1.9};
  JointSearchSpec joint;
  joint.start = 1, joint.resolution = 0.05;
  JointSearchSpec alone = joint;
  alone.joint = false;
  const auto j = run(thr, one_group(5), joint, 2);
  const auto a = run(thr, one_group(5), alone, 2);
  EXPECT_LT(j.probes, a.probes * 2 / 3) << j.probes << " vs " << a.probes;
  // Alone, every candidate is bisected to the resolution; the best is the same either way.
  for (size_t c = 0; c < thr.size(); ++c) EXPECT_EQ(a.search.state(c), JointCapacitySearch::State::Done);
  size_t jb = 0, ab = 0;
  for (size_t c = 1; c < thr.size(); ++c) {
    if (j.search.capacity(c) > j.search.capacity(jb)) jb = c;
    if (a.search.capacity(c) > a.search.capacity(ab)) ab = c;
  }
  EXPECT_FALSE(capacity_ahead(j.search.capacity(jb), *j.search.lowest_failing(ab)) && jb != ab);
}

TEST(JointCapacitySearch, ThePriorScalesANeighboursBracket) {
  // Basic's capacity follows its PE count (the §4.2 read rate P): with the prior, the candidate at twice the
  // prior starts at twice the lead's bracket and needs only its seeds.
  const std::vector<double> thr = {1.0, 2.0, 3.0};
  std::vector<JointCandidate> cands = {{0, 1}, {0, 2}, {0, 3}};
  JointSearchSpec spec;
  spec.start = 0.25, spec.resolution = 0.05;
  const auto o = run(thr, cands, spec, 1);
  const auto& s = o.search;
  EXPECT_EQ(s.state(2), JointCapacitySearch::State::Done);  // the lead: the highest prior
  EXPECT_GE(s.probes(2), 3u);
  EXPECT_LE(s.probes(1), 2u);  // seeded at 2/3 of the lead's bracket: [2, 2.1) in two probes, then dropped
  EXPECT_EQ(s.state(1), JointCapacitySearch::State::Dropped);
}

TEST(JointCapacitySearch, GroupsAreComparedOnlyWithinThemselves) {
  // Two variants (groups): each variant's best is found to the resolution even when the other variant's is higher.
  const std::vector<double> thr = {1.0, 1.2, 4.0, 4.4};
  std::vector<JointCandidate> cands = {{0, 1}, {0, 1}, {1, 1}, {1, 1}};
  JointSearchSpec spec;
  spec.start = 1, spec.resolution = 0.05;
  const auto o = run(thr, cands, spec, 2);
  EXPECT_EQ(o.search.state(1), JointCapacitySearch::State::Done);
  EXPECT_EQ(o.search.state(3), JointCapacitySearch::State::Done);
  EXPECT_GE(o.search.capacity(1), 1.2 / 1.05);
  EXPECT_GE(o.search.capacity(3), 4.4 / 1.05);
  EXPECT_EQ(o.search.dropped_below(0), std::optional<size_t>(1));
  EXPECT_EQ(o.search.dropped_below(2), std::optional<size_t>(3));
}

TEST(JointCapacitySearch, RoundsAreDeterministicAndReplayable) {
  // The same verdicts give the same rounds: an interrupted plan replayed from its cached probes asks for exactly
  // the probes it had asked for.
  const std::vector<double> thr = {1.4, 2.2, 2.25, 0.3};
  JointSearchSpec spec;
  spec.start = 1, spec.resolution = 0.03;
  const auto a = run(thr, one_group(4), spec, 2);
  const auto b = run(thr, one_group(4), spec, 2);
  ASSERT_EQ(a.log.size(), b.log.size());
  for (size_t r = 0; r < a.log.size(); ++r) {
    ASSERT_EQ(a.log[r].size(), b.log[r].size());
    for (size_t i = 0; i < a.log[r].size(); ++i) {
      EXPECT_EQ(a.log[r][i].candidate, b.log[r][i].candidate);
      EXPECT_EQ(a.log[r][i].load, b.log[r][i].load);
    }
  }
  EXPECT_EQ(a.search.probes_left_estimate(), 0);
}

TEST(JointCapacitySearch, NothingMeetsAnywhereGivesUpEverywhere) {
  JointSearchSpec spec;
  spec.start = 1;
  const auto o = run({0, 0}, one_group(2), spec, 2);
  for (size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(o.search.capacity(c), 0);
    EXPECT_TRUE(o.search.final(c));
  }
}
