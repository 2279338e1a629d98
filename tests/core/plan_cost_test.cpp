// A plan's cost (core/analysis/plan_cost.hpp) against hand computations: 3 nodes at $98.32 an hour serving 0.5 agents
// per second at 60,000 prompt and 400 generated tokens per second.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

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

// Mixed hardware (issue 65): each kind of node at its own price, by topology name, by hand.
TEST(PlanCost, EachTopologyAtItsOwnPrice) {
  using dualpath::analysis::parse_prices;
  const auto one = parse_prices("98.32", false);
  EXPECT_EQ(one.node_hour("anything", 8), 98.32);
  const auto mixed = parse_prices("hopper-8gpu-80g=98.32,h20-8gpu-96g=40", false);
  EXPECT_EQ(mixed.node_hour("hopper-8gpu-80g", 8), 98.32);
  EXPECT_EQ(mixed.node_hour("h20-8gpu-96g", 8), 40.0);
  EXPECT_FALSE(mixed.node_hour("other", 8).has_value());  // the plan refuses a node it cannot price
  const auto per_gpu = parse_prices("hopper-8gpu-80g=12.29,h20-8gpu-96g=5", true);
  EXPECT_DOUBLE_EQ(*per_gpu.node_hour("hopper-8gpu-80g", 8), 8 * 12.29);
  EXPECT_DOUBLE_EQ(*per_gpu.node_hour("h20-8gpu-96g", 8), 40.0);
  // 3 H800 prefill and 2 H20 decode nodes: 3 x 98.32 + 2 x 40 = 374.96 $/h; over 1.5 APS, 374.96 / 3600 / 1.5 $ each.
  const double hour = 3 * *mixed.node_hour("hopper-8gpu-80g", 8) + 2 * *mixed.node_hour("h20-8gpu-96g", 8);
  EXPECT_NEAR(hour, 374.96, 1e-9);
  EXPECT_NEAR(split_cost(hour, 1.5, NAN, NAN).per_agent, 374.96 / 3600 / 1.5, 1e-12);
  for (const char* bad : {"", "0", "-3", "1e7", "abc", "x=", "=5", "a=1,a=2", "a=1,b", "12.5$"})
    EXPECT_THROW(parse_prices(bad, false), std::invalid_argument) << bad;
}
