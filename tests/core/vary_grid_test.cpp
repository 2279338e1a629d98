// The --vary grid of sweep and plan, plan's GPU budget and best/runner-up choice (core/analysis/vary_grid.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/vary_grid.hpp"
#include "core/config/input_error.hpp"

using namespace dualpath;
using namespace dualpath::analysis;

namespace {
std::string error_of(const auto& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(VaryGrid, ParsesAKeyAndItsValuesKeepingSpacesInsideValues) {
  const auto a = parse_vary("topology.snic_bw=200 Gbps,400 Gbps");
  EXPECT_EQ(a.key, "topology.snic_bw");
  EXPECT_EQ(a.values, (std::vector<std::string>{"200 Gbps", "400 Gbps"}));
  EXPECT_EQ(parse_vary("k=1").values, std::vector<std::string>{"1"});
}

TEST(VaryGrid, BadVaryTextNamesTheOptionAndWhatWasExpected) {
  EXPECT_NE(error_of([] { parse_vary("topology.snic_bw"); }).find("--vary topology.snic_bw: expected KEY=V1,V2"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_vary("=1,2"); }).find("expected KEY="), std::string::npos);
  EXPECT_NE(error_of([] { parse_vary("k=1,,2"); }).find("non-empty value"), std::string::npos);
  EXPECT_NE(error_of([] { parse_vary("k="); }).find("non-empty value"), std::string::npos);
  EXPECT_NE(error_of([] { parse_vary("k=1,2,1"); }).find("\"1\" appears twice"), std::string::npos);
}

TEST(VaryGrid, GridIsTheCrossProductWithTheFirstAxisSlowest) {
  const auto g = variant_grid({parse_vary("a=1,2"), parse_vary("b=x,y,z")});
  ASSERT_EQ(g.size(), 6u);
  EXPECT_EQ(g[0].label, "a=1; b=x");
  EXPECT_EQ(g[2].overrides, (std::vector<std::string>{"a=1", "b=z"}));
  EXPECT_EQ(g[3].label, "a=2; b=x");
  const auto none = variant_grid({});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].label.empty() && none[0].overrides.empty());
  EXPECT_NE(error_of([] { variant_grid({parse_vary("a=1"), parse_vary("a=2")}); }).find("varied twice"),
            std::string::npos);
}

TEST(VaryGrid, FolderNamesKeepOnlySafeCharacters) {
  const auto g = variant_grid({parse_vary("topology.snic_bw=200 Gbps,400 Gbps"), parse_vary("model=../m/x.json")});
  EXPECT_EQ(variant_slug(g[0]), "topology.snic_bw=200_Gbps__model=.._m_x.json");
  EXPECT_EQ(g[1].values, (std::vector<std::string>{"400 Gbps", "../m/x.json"}));
}

TEST(VaryGrid, BudgetGivesWholeNodesAndNeedsTwo) {
  EXPECT_EQ(budget_nodes(48, 8), 6);
  EXPECT_EQ(budget_nodes(50, 8), 6);  // two GPUs left over
  EXPECT_EQ(budget_nodes(48, 4), 12);
  EXPECT_NE(error_of([] { budget_nodes(15, 8); }).find("--budget 15: expected at least 2 nodes"), std::string::npos);
  EXPECT_NE(error_of([] { budget_nodes(0, 8); }).find("--budget 0"), std::string::npos);
}

TEST(VaryGrid, BestTwoSkipsMissingValuesAndFollowsTheObjective) {
  const std::vector<std::optional<double>> v{3.0, std::nullopt, 1.0, 2.0, 1.0};
  const auto low = best_two(v, true);
  EXPECT_EQ(low.best, 2u);
  EXPECT_EQ(low.runner_up, 4u);  // a tie keeps the earlier index as the best
  const auto high = best_two(v, false);
  EXPECT_EQ(high.best, 0u);
  EXPECT_EQ(high.runner_up, 3u);
  const auto one = best_two({std::nullopt, 5.0}, true);
  EXPECT_EQ(one.best, 1u);
  EXPECT_FALSE(one.runner_up.has_value());
  EXPECT_FALSE(best_two({std::nullopt}, false).best.has_value());
}

// Issue 42: splits whose capacity brackets overlap are a tie, not a winner; JCTs within 1% are too.
TEST(VaryGrid, OverlappingBracketsAndCloseJctsAreTies) {
  // 1P3D and 2P2D at 5% resolution: the same probe rate, 2.33306 APS, failing at 2.4497: a tie.
  EXPECT_FALSE(capacity_ahead(2.33306, 2.4497));
  EXPECT_TRUE(capacity_ahead(2.4497, 2.4497));   // the best's lowest passing rate is the other's failing one
  EXPECT_TRUE(capacity_ahead(1.2, 1.1));
  EXPECT_FALSE(capacity_ahead(1.2, NAN));         // a runner-up that never failed has no upper bracket
  EXPECT_FALSE(jct_ahead(1000, 1005));            // 0.5% faster: within one run's spread
  EXPECT_TRUE(jct_ahead(1000, 1010));
  EXPECT_TRUE(jct_ahead(1000, 1500));
}
