// The paper's online stop rule (core/metrics/stop_rule.hpp) on hand-made TTFT series with known answers.
#include <gtest/gtest.h>

#include <cmath>

#include "core/metrics/stop_rule.hpp"

using namespace dualpath;

namespace {
StopRuleSpec small() {  // the paper's rule scaled down: 10 s window, 100 s lookback, 5%, samples every 1 s
  StopRuleSpec s;
  s.ttft_slo = 4;
  s.window = 10;
  s.lookback = 100;
  s.tolerance = 0.05;
  s.sample = 1;
  return s;
}
}  // namespace

TEST(StopRule, NoVerdictBeforeOneFullWindow) {
  StopRule r(small());
  EXPECT_EQ(r.observe(1, 100), StopReason::None);  // far over the SLO, but the window is not full yet
  EXPECT_EQ(r.observe(9.5, 100), StopReason::None);
  EXPECT_EQ(r.observe(10, 100), StopReason::SloViolated);
}

TEST(StopRule, SloIsJudgedOnTheWindowMeanNotOneRound) {
  StopRule r(small());
  for (double t = 0.5; t < 20; t += 0.5) EXPECT_EQ(r.observe(t, 1), StopReason::None);
  // One round of 10 s among the 20 of the last 10 s: mean (19 x 1 + 10) / 20 = 1.45 <= 4.
  EXPECT_EQ(r.observe(20, 10), StopReason::None);
  EXPECT_NEAR(r.window_mean(), (19 * 1 + 10) / 20.0, 1e-12);
  // Rounds that fell out of the window no longer count: from t = 30.5 only 9-s rounds remain.
  StopReason last = StopReason::None;
  double when = -1;
  for (double t = 20.5; t < 40 && last == StopReason::None; t += 0.5) last = r.observe(t, 9), when = t;
  EXPECT_EQ(last, StopReason::SloViolated);
  // At t = 20 + 0.5k the window (t - 10, t] holds k nines, the 10 at t = 20 and 19 - k ones: mean (8k + 29) / 20,
  // which first exceeds 4 at k = 7, t = 23.5.
  EXPECT_DOUBLE_EQ(when, 23.5);
}

TEST(StopRule, SteadyWhenTheWindowMeanMatchesTheOneALookbackEarlier) {
  StopRule r(small());
  StopReason last = StopReason::None;
  double when = -1;
  for (double t = 0.5; t < 200 && last == StopReason::None; t += 0.5) last = r.observe(t, 2), when = t;
  EXPECT_EQ(last, StopReason::SteadyState);
  EXPECT_GE(when, 110);  // lookback + window
  EXPECT_LE(when, 111);
  EXPECT_DOUBLE_EQ(r.lookback_mean(), 2);
}

TEST(StopRule, GrowingTtftIsNotSteady) {
  StopRule r(small());
  // TTFT grows 10% per lookback (100 s): never within 5% of the window a lookback earlier, and never over 4 s.
  for (double t = 0.5; t < 300; t += 0.5) ASSERT_EQ(r.observe(t, 1.0 * std::pow(1.1, t / 100)), StopReason::None) << t;
  EXPECT_GT(r.lookback_mean(), 0);
}

TEST(StopRule, ReasonNames) {
  EXPECT_STREQ(stop_reason_name(StopReason::None), "none");
  EXPECT_STREQ(stop_reason_name(StopReason::SloViolated), "slo_violated");
  EXPECT_STREQ(stop_reason_name(StopReason::SteadyState), "steady_state");
}
