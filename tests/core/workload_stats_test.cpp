#include <gtest/gtest.h>

#include "core/config/input_error.hpp"
#include "core/workload/trace_stats.hpp"

using namespace dualpath;

// Two trajectories worked by hand: A has 1 round (100 + 10); B has 3 rounds (50+5, 20+2, 30+3).
TEST(WorkloadStats, MatchesHandComputedDefinitions) {
  Trace t;
  t.trajectories.push_back(Trajectory{"A", -1, {{100, 10, 0}}, "", 0, -1, nullptr});
  t.trajectories.push_back(Trajectory{"B", -1, {{50, 5, 0}, {20, 2, 0}, {30, 3, 0}}, "", 0, -1, nullptr});
  const TraceStats s = compute_stats(t, "x");
  EXPECT_EQ(s.trajectories, 2);
  EXPECT_EQ(s.rounds, 4);
  EXPECT_DOUBLE_EQ(s.turns, (1.0 + 9.0) / 4.0);               // sum n^2 / sum n
  EXPECT_DOUBLE_EQ(s.turns_per_trajectory, 2.0);
  EXPECT_DOUBLE_EQ(s.append_per_turn, 200.0 / 4.0);           // pooled over rounds
  EXPECT_DOUBLE_EQ(s.append_traj_mean, (100.0 + 100.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(s.gen_per_turn, 20.0 / 4.0);
  EXPECT_DOUBLE_EQ(s.total, (110.0 + 110.0) / 2.0);
  // Context reused per round: A: 0; B: 0, 55, 77.
  EXPECT_DOUBLE_EQ(s.context, (0.0 + 0 + 55 + 77) / 4.0);
  EXPECT_DOUBLE_EQ(s.context_traj_mean, (0.0 + (0 + 55 + 77) / 3.0) / 2);  // mean of per-trajectory means
  EXPECT_DOUBLE_EQ(s.kv_hit_rate, 33.0 / (33.0 + 50.0));
  EXPECT_EQ(s.max_total, 110);
}

TEST(WorkloadStats, RejectsEmptyTraceAndEmptyTrajectory) {
  EXPECT_THROW(compute_stats(Trace{}, "x"), InputError);
  Trace t;
  t.trajectories.push_back(Trajectory{"A", -1, {}, "", 0, -1, nullptr});
  EXPECT_THROW(compute_stats(t, "x"), InputError);
}
