// The paper's online stop rule (core/metrics/stop_rule.hpp) on hand-made TTFT series with known answers.
#include <gtest/gtest.h>

#include <algorithm>
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

// Issue 62: a flat TTFT while the load still rises (an agent's reads grow with its context) is a transient, not a
// steady state; the rule waits until the prompt tokens served stop rising.
TEST(StopRule, RisingLoadUnderAFlatTtftIsNotSteady) {
  StopRule r(small());
  // Load (prompt tokens per round, one round per 0.5 s) rises linearly until t = 200, then stays flat.
  const auto load = [](double t) { return 1000 * std::min(t, 200.0); };
  StopReason last = StopReason::None;
  double when = -1;
  for (double t = 0.5; t < 400 && last == StopReason::None; t += 0.5) last = r.observe(t, 2, load(t)), when = t;
  EXPECT_EQ(last, StopReason::SteadyState);
  // The halves (t-50, t] and (t-100, t-50] differ by at most 5% once the ramp's share of the earlier half is small:
  // for t in [250, 300] the earlier half still ramps. Closed form: recent = 200k x 50 (flat), earlier = the mean of
  // the ramp over (t-100, t-50]; solve 200 <= 1.05 x mean(min(s, 200)) over that interval.
  double expect = -1;
  for (double t = 200; t < 400 && expect < 0; t += 0.5) {
    double earlier = 0, recent = 0;
    for (double s = t - 99.5; s <= t + 1e-9; s += 0.5) (s > t - 50 ? recent : earlier) += load(s);
    if (recent <= 1.05 * earlier) expect = t;
  }
  EXPECT_DOUBLE_EQ(when, expect);
  EXPECT_GT(when, 250);  // far later than the 110 s at which the TTFT alone is steady
  EXPECT_NEAR(r.load_recent(), 200000.0 * 2, 1e-6);  // tokens per second: 200k per round, two rounds per second
}

TEST(StopRule, TtftOnlyReadingIgnoresTheLoad) {
  StopRuleSpec spec = small();
  spec.load_flat = false;  // workload.stop = slo-ttft: the paper's words alone
  StopRule r(spec);
  StopReason last = StopReason::None;
  double when = -1;
  for (double t = 0.5; t < 400 && last == StopReason::None; t += 0.5) last = r.observe(t, 2, 1000 * t), when = t;
  EXPECT_EQ(last, StopReason::SteadyState);
  EXPECT_LE(when, 111);
  EXPECT_LT(r.load_recent(), 0);  // the load test never ran
}

TEST(StopRule, FallingLoadIsSteady) {
  // One-sided: agents finishing lower the load, which hides no overload.
  StopRule r(small());
  StopReason last = StopReason::None;
  for (double t = 0.5; t < 200 && last == StopReason::None; t += 0.5) last = r.observe(t, 2, 1e6 / t);
  EXPECT_EQ(last, StopReason::SteadyState);
  EXPECT_LT(r.load_recent(), r.load_earlier());
}

// Past capacity the served load is flat at what the bottleneck serves while agents queue: closed-loop agents show an
// overload as agents in flight that keep growing, and that is not a steady state either.
TEST(StopRule, GrowingBacklogUnderAFlatLoadIsNotSteady) {
  StopRule r(small());
  // Flat TTFT and served load; agents in flight grow 10% per half look-back (50 s), then stop growing at t = 300.
  const auto agents = [](double t) { return 100 * std::pow(1.1, std::min(t, 300.0) / 50); };
  StopReason last = StopReason::None;
  double when = -1;
  for (double t = 0.5; t < 600 && last == StopReason::None; t += 0.5) last = r.observe(t, 2, 1000, agents(t)), when = t;
  EXPECT_EQ(last, StopReason::SteadyState);
  EXPECT_GT(when, 300);  // not while the backlog grew
  EXPECT_LE(r.agents_recent(), 1.05 * r.agents_earlier());
  EXPECT_NEAR(r.load_recent(), 2000, 1e-9);  // 1,000 tokens per round, two rounds per second
}

TEST(StopRule, NoSteadyStateAfterTheArrivalsEnd) {
  // Once agents stop arriving the load drains: flat TTFT and a falling load then are not a steady state.
  StopRuleSpec spec = small();
  spec.arrivals_end = 50;
  StopRule r(spec);
  for (double t = 0.5; t < 400; t += 0.5) ASSERT_EQ(r.observe(t, 2, 1e6 / t), StopReason::None) << t;
  // The TTFT-only reading (slo-ttft) keeps the rule as it was: steady, arrivals or not.
  spec.load_flat = false;
  StopRule old(spec);
  StopReason last = StopReason::None;
  for (double t = 0.5; t < 400 && last == StopReason::None; t += 0.5) last = old.observe(t, 2, 1e6 / t);
  EXPECT_EQ(last, StopReason::SteadyState);
}

TEST(StopRule, ReasonNames) {
  EXPECT_STREQ(stop_reason_name(StopReason::None), "none");
  EXPECT_STREQ(stop_reason_name(StopReason::SloViolated), "slo_violated");
  EXPECT_STREQ(stop_reason_name(StopReason::SteadyState), "steady_state");
}
