// A plan's cost (core/analysis/plan_cost.hpp) against hand computations: 3 nodes at $98.32 an hour serving 0.5 agents
// per second at 60,000 prompt and 400 generated tokens per second.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/plan_cost.hpp"

using dualpath::analysis::split_cost;

TEST(PlanCost, SpreadsTheClustersHourOverWhatItServes) {
  const auto c = split_cost(3 * 98.32, 0.5, 60000, 400);
  EXPECT_DOUBLE_EQ(c.per_hour, 294.96);
  EXPECT_NEAR(c.per_agent, 294.96 / 3600 / 0.5, 1e-12);            // $0.16387 an agent
  EXPECT_NEAR(c.per_million_input_tokens, 294.96 / 3600 / 0.06, 1e-12);  // $1.3656 per million prompt tokens
  EXPECT_NEAR(c.per_million_output_tokens, 294.96 / 3600 / 0.0004, 1e-9);  // $204.83 per million generated
  EXPECT_NEAR(c.per_agent, 0.163866666666667, 1e-12);
}

TEST(PlanCost, UnknownRatesGiveNoFigure) {
  const auto c = split_cost(100, 0, -1, 0);
  EXPECT_DOUBLE_EQ(c.per_hour, 100);
  EXPECT_TRUE(std::isnan(c.per_agent) && std::isnan(c.per_million_input_tokens) &&
              std::isnan(c.per_million_output_tokens));
}
