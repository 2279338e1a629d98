// Faults in the core (issue 19): what the brain does without a simulator. A backend that cannot inject faults
// refuses a scenario that has them; the placements give no request to an engine that cannot take one; a lost
// node's writes give their blocks back (node-down).
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "core/config/faults.hpp"
#include "core/config/input_error.hpp"
#include "core/cluster/cluster.hpp"
#include "core/kv/block_index.hpp"
#include "core/sched/de_selection.hpp"
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

// Two decode groups of two engines; the first group's engines were lost with a node (node-down).
ClusterView two_de_groups_first_lost() {
  ClusterView v;
  v.gpus_per_node = 2;
  v.z_factor = 1.05;
  for (int g = 0; g < 4; ++g) {
    EngineState e;
    e.gpu = g, e.node = g / 2, e.group = g / 2, e.prefill = false;
    e.hbm = BufferPool(80e9);
    e.can_take = g >= 2;
    v.engines.push_back(e);
  }
  v.de_groups = {{0, 1}, {2, 3}};
  v.nodes.resize(2);
  return v;
}

TEST(CoreFaults, DecodeRoutingSkipsAGroupWithNoEngineLeft) {
  ClusterView v = two_de_groups_first_lost();
  v.engines[2].tok = 1'000'000;  // the open group is far busier: the lost one would win on load
  std::deque<QueuedRequest> global;
  for (int i = 0; i < 4; ++i) global.push_back({i, 1000, 1e9});
  for (int g : route_to_decode_groups(v, global, {0, 0})) EXPECT_EQ(g, 1);
  v.engines[2].can_take = v.engines[3].can_take = false;  // no group open: the cluster stops before routing (node_down), never routes
  EXPECT_THROW(route_to_decode_groups(v, global, {0, 0}), std::logic_error);
}

TEST(CoreFaults, SchedulerPlacesDecodeOnlyOnEnginesLeft) {
  ClusterView v = two_de_groups_first_lost();
  v.de_groups = {{0, 2}};  // one group, half of it lost
  v.engines[0].tok = 0, v.engines[2].tok = 1'000'000;  // the lost engine would win on load
  std::deque<QueuedRequest> queue;
  for (int i = 0; i < 3; ++i) queue.push_back({i, 1000, 1e9});
  SchedulerPlacement sp;
  const auto placed = sp.place_decode(v, 0, queue);
  EXPECT_EQ(placed.size(), queue.size());
  for (const auto& p : placed) EXPECT_EQ(p.engine, 2);
}

// A write lost with its node gives its claimed blocks back; persisted blocks stay persisted.
TEST(CoreFaults, UnclaimGivesBackOnlyClaimedBlocks) {
  std::vector<Agent> agents(1);
  agents[0].id = 0;
  agents[0].rounds = {Round{1000, 1, 0}};
  BlockIndex idx(agents, 64);
  const BlockRanges head = idx.claim(0, 0, 4);
  idx.persist(head);
  const BlockRanges tail = idx.claim(0, 4, 8);
  EXPECT_TRUE(idx.claim(0, 4, 8).empty());  // claimed by the write in flight
  idx.unclaim(tail);
  idx.unclaim(head);                        // persisted: untouched
  EXPECT_EQ(idx.persisted_prefix(0), 4 * 64);
  const BlockRanges again = idx.claim(0, 0, 8);  // the lost blocks are claimable again, the persisted ones not
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].first, 4);
  EXPECT_EQ(again[0].last, 8);
}

// Each fault kind's row (core/config/fault_kinds.hpp) decides which keys the loader takes: `gpu` exactly for
// the kinds that name a GPU, `node` for all but the storage cluster's, `factor` exactly for the degrades, `until`
// for all but the losses. Every row is tried with and without each key.
TEST(CoreFaults, EachKindsRowDecidesTheKeysItTakes) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.topology.storage.server_nic_bw = 50e9;  // storage-degrade needs a storage cluster with a bandwidth
  Origins origins;
  origins.set("", "faults.json", true);
  auto loads = [&](const nlohmann::json& fault) {
    try {
      parse_faults(nlohmann::json{{"faults", {fault}}}, origins, s.deployment, s.topology);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
  int rows = 0;
  for (const FaultKindRow& row : fault_kinds()) {
    ++rows;
    nlohmann::json base = {{"kind", row.name}, {"at", "1 s"}};
    if (row.target != FaultTarget::Storage) base["node"] = 0;
    if (row.target == FaultTarget::Gpu) base["gpu"] = 0;
    if (has_factor(row.value)) base["factor"] = 0.5;
    EXPECT_TRUE(loads(base)) << row.name << ": " << base.dump();
    auto with = [&](const char* key, const nlohmann::json& v) {
      nlohmann::json f = base;
      f[key] = v;
      return f;
    };
    auto without = [&](const char* key) {
      nlohmann::json f = base;
      f.erase(key);
      return f;
    };
    const bool names_gpu = row.target == FaultTarget::Gpu, names_node = row.target != FaultTarget::Storage;
    EXPECT_EQ(loads(names_gpu ? without("gpu") : with("gpu", 0)), false) << row.name << ": gpu";
    EXPECT_EQ(loads(names_node ? without("node") : with("node", 0)), false) << row.name << ": node";
    EXPECT_EQ(loads(has_factor(row.value) ? without("factor") : with("factor", 0.5)), false) << row.name << ": factor";
    EXPECT_EQ(loads(with("until", "2 s")), !loses_engines(row.value)) << row.name << ": until";
    EXPECT_EQ(name_of(row.value), std::string(row.name));
  }
  EXPECT_EQ(rows, 5);
}

}  // namespace
}  // namespace dualpath
