#include <cmath>
#include <iterator>
#include <set>

#include <gtest/gtest.h>

#include "core/config/input_error.hpp"
#include "core/workload/agents.hpp"
#include "core/workload/synth.hpp"
#include "core/workload/table2.hpp"
#include "workload_test_util.hpp"

using namespace dualpath;

namespace {

Trace small_trace() {
  Trace t;
  t.trajectories.push_back(Trajectory{"a", -1, {{100, 10, 0}, {50, 5, 0}, {40, 4, 0}}, "", 0, -1, nullptr});
  t.trajectories.push_back(Trajectory{"b", -1, {{200, 20, 0.5}, {30, 3, 0}}, "", 0, -1, nullptr});
  return t;
}

WorkloadSpec offline(int agents) {
  WorkloadSpec s;
  s.source = WorkloadSource::File;
  s.agents = agents;
  s.seed = 5;
  return s;
}

}  // namespace

TEST(WorkloadAgents, OfflineUsesTrajectoriesInOrderThenClonesWithASyntheticFirstRound) {
  const Trace t = small_trace();
  const auto agents = make_agents(t, offline(50));
  ASSERT_EQ(agents.size(), 50u);
  EXPECT_EQ(agents[0].source, "a");
  EXPECT_EQ(agents[1].source, "b");
  EXPECT_EQ(agents[0].rounds.size(), 3u);
  std::set<std::string> sampled;
  std::set<int64_t> prefix_lengths;
  for (size_t k = 0; k < agents.size(); ++k) {
    EXPECT_EQ(agents[k].id, static_cast<int>(k));
    EXPECT_EQ(agents[k].start, 0.0);
    if (k < 2) continue;
    const auto& ag = agents[k];
    const Trajectory& src = ag.source == "a+prefix" ? t.trajectories[0] : t.trajectories[1];
    ASSERT_TRUE(ag.source == "a+prefix" || ag.source == "b+prefix") << ag.source;
    sampled.insert(ag.source);
    ASSERT_EQ(ag.rounds.size(), src.rounds.size() + 1);
    EXPECT_EQ(ag.rounds[0].gen, 1);
    EXPECT_GE(ag.rounds[0].append, kClonePrefixMinTokens);
    EXPECT_LE(ag.rounds[0].append, kClonePrefixMaxTokens);
    prefix_lengths.insert(ag.rounds[0].append);
    EXPECT_EQ(ag.rounds[1].append, src.rounds[0].append);
  }
  EXPECT_EQ(sampled.size(), 2u);          // both trajectories get sampled
  EXPECT_GT(prefix_lengths.size(), 20u);  // prefix lengths are random, not a constant
}

TEST(WorkloadAgents, OfflineZeroAgentsMeansOnePerTrajectoryAndFewerAgentsTakeAPrefix) {
  EXPECT_EQ(make_agents(small_trace(), offline(0)).size(), 2u);
  const auto one = make_agents(small_trace(), offline(1));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].source, "a");
}

TEST(WorkloadAgents, SameSeedSameAgents) {
  const auto x = make_agents(small_trace(), offline(30)), y = make_agents(small_trace(), offline(30));
  for (size_t k = 0; k < x.size(); ++k) {
    EXPECT_EQ(x[k].source, y[k].source);
    EXPECT_EQ(x[k].rounds.front().append, y[k].rounds.front().append);
  }
}

TEST(WorkloadAgents, ScalesRoundsAndTruncatesAtMaxLen) {
  WorkloadSpec s = offline(0);
  s.append_scale = 1.5;
  s.gen_scale = 0.01;  // 10 * 0.01 = 0.1 -> at least 1 token
  s.max_len = 227;
  s.think_time = 2;
  Trace t = small_trace();
  t.trajectories[1].rounds[0].append = 100;  // scaled first round 150 + 1 fits in 227
  const auto agents = make_agents(t, s);
  const auto& a = agents[0].rounds;
  ASSERT_EQ(a.size(), 2u);  // third round (60 + 1) would reach 288 > 227
  EXPECT_EQ(a[0].append, 150);
  EXPECT_EQ(a[0].gen, 1);
  EXPECT_EQ(a[1].append, 75);
  EXPECT_DOUBLE_EQ(a[0].think, 2.0);  // think_time added between rounds...
  EXPECT_DOUBLE_EQ(a[1].think, 0.0);  // ...but not after the last one
  EXPECT_DOUBLE_EQ(agents[1].rounds[0].think, 2.5);
}

TEST(WorkloadAgents, GeneratedTracesTruncateAtTheProfileMaxLenWhenMaxLenIsZero) {
  WorkloadSpec s;
  s.profile = Profile::K32;
  s.trajectories = 40;
  s.append_scale = 3;  // Fig. 9: scale, then truncate at MaxLen
  const Trace t = load_workload_trace(s, "");
  for (const auto& a : make_agents(t, s)) {
    int64_t total = 0;
    for (const auto& r : a.rounds) total += r.append + r.gen;
    EXPECT_LE(total, 32768);
  }
}

TEST(WorkloadAgents, MaxLenShorterThanAFirstRoundIsAnInputError) {
  WorkloadSpec s = offline(0);
  s.max_len = 50;
  EXPECT_THROW(make_agents(small_trace(), s), InputError);
}

TEST(WorkloadAgents, OnlinePoissonArrivalsUntilDuration) {
  WorkloadSpec s = offline(0);
  s.mode = ArrivalMode::Online;
  s.aps = 4;
  s.duration = 500;
  const auto agents = make_agents(small_trace(), s);
  // 2000 expected; 5 sigma = 224.
  EXPECT_NEAR(static_cast<double>(agents.size()), 2000.0, 224.0);
  double prev = 0, sum_gap = 0;
  for (const auto& a : agents) {
    EXPECT_GE(a.start, prev);
    EXPECT_LT(a.start, 500);
    sum_gap += a.start - prev;
    prev = a.start;
    EXPECT_FALSE(a.source.find("+prefix") != std::string::npos);  // online agents replay from round 0
  }
  EXPECT_NEAR(sum_gap / static_cast<double>(agents.size()), 0.25, 0.02);
}

TEST(WorkloadAgents, OnlineWithZeroApsReplaysTraceArrivals) {
  Trace t = small_trace();
  t.trajectories[0].arrival = 7;
  t.trajectories[1].arrival = 3;
  WorkloadSpec s = offline(0);
  s.mode = ArrivalMode::Online;
  const auto agents = make_agents(t, s);
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0].source, "b");
  EXPECT_DOUBLE_EQ(agents[0].start, 3);
  s.duration = 5;
  EXPECT_EQ(make_agents(t, s).size(), 1u);
  t.trajectories[0].arrival = -1;
  EXPECT_THROW(make_agents(t, s), InputError);
}

// time_scale multiplies the trace's own times, arrivals and pauses alike; workload.think_time is added after.
TEST(WorkloadAgents, TimeScaleCompressesArrivalsAndTraceThinkTimes) {
  Trace t = small_trace();
  t.trajectories[0].arrival = 8;
  t.trajectories[1].arrival = 2;
  WorkloadSpec s = offline(0);
  s.mode = ArrivalMode::Online;
  s.time_scale = 0.25;
  s.think_time = 1;
  const auto agents = make_agents(t, s);
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_DOUBLE_EQ(agents[0].start, 0.5);
  EXPECT_DOUBLE_EQ(agents[1].start, 2.0);
  EXPECT_DOUBLE_EQ(agents[0].rounds[0].think, 0.5 * 0.25 + 1);  // trajectory b's first pause is 0.5 s
  s.duration = 1;  // the limit applies to the scaled arrivals
  EXPECT_EQ(make_agents(t, s).size(), 1u);
  s.time_scale = 0;
  EXPECT_THROW(make_agents(t, s), InputError);
}

// A verbatim replay carries its trajectory's ancestry; clones (a synthetic first round) share nothing.
TEST(WorkloadAgents, SharedPrefixesFollowTheParentChainAndTheScaling) {
  Trace t = small_trace();  // a: 100+10, 50+5, 40+4 = 209 tokens; b: 200+20, 30+3 = 253 tokens
  t.trajectories.push_back(Trajectory{"c", -1, {{120, 10, 0}}, "", 0, -1, nullptr});
  t.trajectories[1].parent = "a", t.trajectories[1].shared = 150, t.trajectories[1].parent_index = 0;
  t.trajectories[2].parent = "b", t.trajectories[2].shared = 125, t.trajectories[2].parent_index = 1;
  WorkloadSpec s = offline(4);
  const auto agents = make_agents(t, s);
  EXPECT_EQ(agents[1].trajectory, 1);
  ASSERT_EQ(agents[1].shares.size(), 1u);
  EXPECT_EQ(agents[1].shares[0].trajectory, 0);
  EXPECT_EQ(agents[1].shares[0].tokens, 150);
  // c shares 125 with b, all of which b shares with a: one entry, a's (the deepest holder of those blocks).
  ASSERT_EQ(agents[2].shares.size(), 1u);
  EXPECT_EQ(agents[2].shares[0].trajectory, 0);
  EXPECT_EQ(agents[2].shares[0].tokens, 125);
  EXPECT_EQ(agents[3].trajectory, -1);  // a clone
  EXPECT_TRUE(agents[3].shares.empty());
  // Appends doubled: b's 150 shared tokens are 150 of its 200-token first append -> 300; in a they span the
  // first append (100 -> 200), the generation (10 -> 10) and 40 of the second append (-> 80): 290. The
  // shorter is shared.
  s.append_scale = 2;
  const auto scaled = make_agents(t, s);
  EXPECT_EQ(scaled[1].shares[0].tokens, 290);
}

// (An unknown workload.source cannot reach here: it is an enum the loader parses, config_loader tests refuse it.)
TEST(WorkloadAgents, LoadsFilesRelativeToTheScenarioDir) {
  const auto path = test::write_temp("agents_trace.jsonl", "{\"id\":\"z\",\"rounds\":[[9,9]]}\n");
  WorkloadSpec s;
  s.source = WorkloadSource::File;
  s.file = "agents_trace.jsonl";
  const auto dir = path.substr(0, path.size() - s.file.size());
  EXPECT_EQ(load_workload_trace(s, dir).trajectories.at(0).id, "z");
}

// workload.profile is parsed once, against the one name table (choices.hpp); every name in it has its synthetic
// parameters under both readings of Table 2 and a Table 2 row.
TEST(WorkloadAgents, EveryProfileNameHasItsParametersAndTableRow) {
  for (const auto& c : kProfiles) {
    for (Table2Reading reading : {Table2Reading::Rounds, Table2Reading::Trajectories})
      EXPECT_EQ(synth_profile(c.name, reading, "x").name, c.name);
    EXPECT_EQ(table2_row(c.name, "x").profile, c.name);
  }
  EXPECT_EQ(synth_profile_names().size(), std::size(kProfiles));
  EXPECT_EQ(table2_rows().size(), std::size(kProfiles));
}
