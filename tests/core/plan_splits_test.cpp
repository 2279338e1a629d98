// The P/D splits `dualpath plan` evaluates: group sizes that fit each side and the weights-fit verdict.
#include <gtest/gtest.h>

#include <string>

#include "core/analysis/plan_splits.hpp"
#include "core/config/loader.hpp"

using namespace dualpath;
using namespace dualpath::analysis;

TEST(PlanSplits, GroupKeepsTheScenarioSizeWhereItDividesElseSpansTheSide) {
  EXPECT_EQ(fitting_group(16, 2, 8), 16);
  EXPECT_EQ(fitting_group(16, 4, 8), 16);  // two groups of 16
  EXPECT_EQ(fitting_group(16, 3, 8), 24);  // 16 does not divide 24: one group of the whole side
  EXPECT_EQ(fitting_group(32, 2, 8), 16);
  EXPECT_EQ(fitting_group(8, 1, 8), 8);
}

TEST(PlanSplits, Ds660bOnSixNodesHasNoOneNodeSide) {
  // DS 660B: ≈17 GB replicated + 654 GB of experts / N. On one node (EP8) that is ≈99 GB per 80 GB GPU.
  const Scenario sc = load_scenario(std::string(DUALPATH_DATA_DIR) + "/scenarios/ds660b-2p4d.json");
  const auto splits = enumerate_splits(sc, 6);
  ASSERT_EQ(splits.size(), 5u);
  for (const auto& s : splits) {
    EXPECT_EQ(s.P + s.D, 6);
    const bool one_node_side = s.P == 1 || s.D == 1;
    EXPECT_EQ(s.feasible, !one_node_side) << s.P << "P" << s.D << "D: " << s.why;
    if (!s.feasible) {
      EXPECT_NE(s.why.find("GB of weights per GPU"), std::string::npos);
    }
  }
  EXPECT_EQ(splits[1].pe_group_gpus, 16);  // 2P4D keeps the scenario's groups
  EXPECT_EQ(splits[1].de_group_gpus, 32);
  EXPECT_EQ(splits[2].pe_group_gpus, 24);  // 3P3D: one group per side
  EXPECT_EQ(splits[2].de_group_gpus, 24);
}
