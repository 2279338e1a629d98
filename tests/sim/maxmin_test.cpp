// The native engine's weighted max-min solver: closed forms and, on random instances, the bottleneck property
// that characterises weighted max-min fairness (every flow crosses a saturated link on which no flow has a higher
// rate per unit of weight) and feasibility (no link over capacity).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/maxmin.hpp"

namespace dualpath::sim {
namespace {

struct FlowOut {
  double weight = 1;
  double rate = 0;
};
struct Instance {
  std::vector<std::vector<int32_t>> routes;
  std::vector<FlowOut> flows;
  std::vector<int> ids;
  void add(std::vector<int32_t> links, double weight = 1) {
    routes.push_back(std::move(links));
    flows.push_back(FlowOut{weight, 0});
  }
  void solve(MaxMin& m) {
    for (size_t i = ids.size(); i < flows.size(); ++i)
      ids.push_back(m.add(routes[i].data(), static_cast<int>(routes[i].size()), flows[i].weight));
    m.solve();
    for (size_t i = 0; i < flows.size(); ++i) flows[i].rate = m.rate(ids[i]);
  }
};

TEST(MaxMin, EqualFlowsSplitALink) {
  MaxMin m({50e9});
  Instance in;
  in.add({0});
  in.add({0});
  in.solve(m);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 25e9);
  EXPECT_DOUBLE_EQ(in.flows[1].rate, 25e9);
}

TEST(MaxMin, WeightsSplit99To1) {
  MaxMin m({50e9});
  Instance in;
  in.add({0}, 99);
  in.add({0}, 1);
  in.solve(m);
  EXPECT_NEAR(in.flows[0].rate, 49.5e9, 1);
  EXPECT_NEAR(in.flows[1].rate, 0.5e9, 1);
}

TEST(MaxMin, ABottleneckElsewhereLeavesTheRestToOthers) {
  // Link 0 (10) carries f0 and f1; link 1 (4) carries f1 and f2. Link 1's level 2 is lowest: f1 = f2 = 2, and
  // f0 takes the 8 left on link 0.
  MaxMin m({10, 4});
  Instance in;
  in.add({0});
  in.add({0, 1});
  in.add({1});
  in.solve(m);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 8);
  EXPECT_DOUBLE_EQ(in.flows[1].rate, 2);
  EXPECT_DOUBLE_EQ(in.flows[2].rate, 2);
}

TEST(MaxMin, WeightedFlowCappedElsewhereIsWorkConserving) {
  // A heavy flow held to 1 by link 1 leaves 9 of link 0 to the light one (weights only split a contested link).
  MaxMin m({10, 1});
  Instance in;
  in.add({0, 1}, 99);
  in.add({0}, 1);
  in.solve(m);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 1);
  EXPECT_DOUBLE_EQ(in.flows[1].rate, 9);
}

TEST(MaxMin, OnlyTheChangedComponentIsResolvedAndRemovalFreesCapacity) {
  MaxMin m({10, 10, 6});
  Instance in;
  in.add({0});
  in.add({0});
  in.add({1, 2});
  in.solve(m);
  EXPECT_EQ(m.solved_flows(), 3u);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 5);
  EXPECT_DOUBLE_EQ(in.flows[2].rate, 6);
  // A flow on link 2 joins: only the component {links 1, 2} is re-solved.
  in.add({2});
  in.solve(m);
  EXPECT_EQ(m.solved_flows(), 2u);
  EXPECT_DOUBLE_EQ(in.flows[2].rate, 3);
  EXPECT_DOUBLE_EQ(in.flows[3].rate, 3);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 5);
  // One of link 0's flows leaves: the other gets the whole link.
  m.remove(in.ids[1]);
  m.solve();
  EXPECT_EQ(m.solved_flows(), 1u);
  EXPECT_DOUBLE_EQ(m.rate(in.ids[0]), 10);
  m.solve();
  EXPECT_EQ(m.solved_flows(), 0u);  // nothing changed
}

TEST(MaxMin, RandomInstancesAreFeasibleAndBottlenecked) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int links = 2 + static_cast<int>(rng() % 12);
    std::vector<double> cap;
    for (int l = 0; l < links; ++l) cap.push_back(1 + static_cast<double>(rng() % 100));
    MaxMin m(cap);
    Instance in;
    const int flows = 1 + static_cast<int>(rng() % 20);
    for (int f = 0; f < flows; ++f) {
      std::vector<int32_t> route;
      const int len = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < len; ++k) {
        const auto l = static_cast<int32_t>(rng() % static_cast<unsigned>(links));
        if (std::find(route.begin(), route.end(), l) == route.end()) route.push_back(l);
      }
      in.add(route, (rng() % 3 == 0) ? 99.0 : 1.0);
    }
    in.solve(m);
    std::vector<double> load(cap.size(), 0);
    for (size_t f = 0; f < in.flows.size(); ++f) {
      ASSERT_GT(in.flows[f].rate, 0);
      for (int32_t l : in.routes[f]) load[static_cast<size_t>(l)] += in.flows[f].rate;
    }
    for (size_t l = 0; l < cap.size(); ++l) ASSERT_LE(load[l], cap[l] * (1 + 1e-9)) << "trial " << trial;
    for (size_t f = 0; f < in.flows.size(); ++f) {
      const double level = in.flows[f].rate / in.flows[f].weight;
      bool bottlenecked = false;
      for (int32_t l : in.routes[f]) {
        if (load[static_cast<size_t>(l)] < cap[static_cast<size_t>(l)] * (1 - 1e-9)) continue;
        bool highest = true;
        for (size_t g = 0; g < in.flows.size(); ++g) {
          const auto& r = in.routes[g];
          if (std::find(r.begin(), r.end(), l) != r.end() &&
              in.flows[g].rate / in.flows[g].weight > level * (1 + 1e-9))
            highest = false;
        }
        bottlenecked = bottlenecked || highest;
      }
      ASSERT_TRUE(bottlenecked) << "trial " << trial << " flow " << f;
    }
  }
}

}  // namespace
}  // namespace dualpath::sim
