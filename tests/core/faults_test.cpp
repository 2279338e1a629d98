// Faults in the core (issue 19): what the brain does without a simulator. A backend that cannot inject faults
// refuses a scenario that has them; the placements give no request to a prefill engine that cannot load KV.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "core/config/input_error.hpp"
#include "core/engine/cluster.hpp"
#include "core/sched/policies/round_robin_placement.hpp"
#include "core/sched/policies/scheduler_placement.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

namespace dualpath {
namespace {

std::vector<Agent> two_agents() {
  std::vector<Agent> agents(2);
  for (int i = 0; i < 2; ++i) {
    agents[static_cast<size_t>(i)].id = i;
    agents[static_cast<size_t>(i)].rounds = {Round{4096, 16, 0}, Round{256, 16, 0}};
  }
  return agents;
}

TEST(CoreFaults, ABackendThatCannotInjectFaultsRefusesThem) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.faults.push_back(FaultSpec{FaultKind::SnicDown, 0, 0, 1.0, -1});
  test::FakeBackend be(test::FakeRates{50e9, 50e9, 1});
  Cluster c(s, two_agents(), be);
  try {
    c.start();
    FAIL() << "a scenario with faults started on a backend that cannot inject them";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/faults"), std::string::npos) << e.what();
  }
}

// Two prefill engines, the first of which cannot take requests: every request goes to the second.
ClusterView two_pe_view() {
  ClusterView v;
  v.gpus_per_node = 1;
  for (int g = 0; g < 2; ++g) {
    EngineState e;
    e.gpu = g, e.node = g, e.group = g, e.prefill = true;
    e.hbm = BufferPool(80e9);
    v.engines.push_back(e);
    v.pe_groups.push_back({g});
    NodeState n;
    n.prefill = true;
    n.buffer = BufferPool(80e9);
    v.nodes.push_back(n);
  }
  v.engines[0].can_take = false;
  v.beta_tokens = 1 << 20;
  v.alpha_tokens = 1 << 20;
  return v;
}

TEST(CoreFaults, RoundRobinSkipsAnEngineThatCannotTake) {
  const ClusterView v = two_pe_view();
  std::deque<QueuedRequest> waiting;
  for (int i = 0; i < 6; ++i) waiting.push_back({i, 1000, 0});
  RoundRobinPlacement rr;
  EXPECT_TRUE(rr.place_prefill(v, 0, waiting).empty());
  const auto placed = rr.place_prefill(v, 1, waiting);
  EXPECT_EQ(placed.size(), waiting.size());
  for (const auto& p : placed) EXPECT_EQ(p.engine, 1);
}

TEST(CoreFaults, SchedulerSkipsAnEngineThatCannotTake) {
  const ClusterView v = two_pe_view();
  std::deque<QueuedRequest> waiting;
  for (int i = 0; i < 6; ++i) waiting.push_back({i, 1000, 0});
  SchedulerPlacement sp;
  EXPECT_TRUE(sp.place_prefill(v, 0, waiting).empty());
  EXPECT_FALSE(sp.place_prefill(v, 1, waiting).empty());
}

}  // namespace
}  // namespace dualpath
