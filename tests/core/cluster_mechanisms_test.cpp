// Mechanisms that the end-to-end tests would not miss if they were removed (issue 16; scripts/mutation_check.sh
// breaks each one and expects a test here to fail): decode-time persistence, the compute quota's chunking, Basic's
// round-robin placement and Algorithm 1's alpha/beta conversion from seconds to tokens.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "core/cluster/cluster.hpp"
#include "core/metrics/activity_log.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

// A one-round agent has no later prompt that would write its generated tokens, so every Full Block past the
// prompt is on storage only because decode persisted it: prompt 100 + 300 generated = 400 tokens, 6 blocks of 64.
TEST(ClusterMechanisms, DecodePersistsEveryFullBlockOfGeneratedTokens) {
  for (const char* policy : {"basic", "dualpath"}) {
    Scenario s = test::small_scenario();
    s.policy.name = policy;
    FakeBackend be(FakeRates{50e9, 50e9, 1});
    Cluster c(s, {agent(0, {{100, 300, 0}})}, be);
    c.start();
    be.run();
    ASSERT_TRUE(c.finished()) << c.stall_report();
    EXPECT_EQ(be.persisted[0], (std::set<int64_t>{0, 1, 2, 3, 4, 5})) << policy;
    EXPECT_NEAR(c.totals().storage_write, 6 * 64 * s.model.kv_bytes_per_token(), 1) << policy;
    EXPECT_EQ(be.rewritten_blocks, 0);
  }
}

// A 32K-token first prompt under a 20 ms quota: its predicted attention is far over the quota, so the engine
// prefills it in chunks, one per forward, each within the quota, and the chunks add up to the prompt.
TEST(ClusterMechanisms, ComputeQuotaChunksALongPrefillAcrossForwards) {
  Scenario s = test::small_scenario();
  s.policy.name = "dualpath";
  s.policy.compute_quota = 0.02;
  s.policy.quota_scope = QuotaScope::Forward;
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  Cluster c(s, {agent(0, {{32768, 2, 0}})}, be);
  ActivityLog log;
  c.set_activity_log(&log);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const double whole = c.cost().attention_layer_time(0, 32768) * s.model.n_layers;
  ASSERT_GT(whole, 4 * s.policy.compute_quota);  // the premise: one forward could not hold it
  int64_t cached = 0;
  int chunks = 0;
  for (const auto& f : log.forwards) {
    ASSERT_EQ(f.request_ids.size(), 1u);
    const double predicted = c.cost().attention_layer_time(cached, f.fresh_tokens) * s.model.n_layers;
    EXPECT_LE(predicted, s.policy.compute_quota * (1 + 1e-9)) << "chunk " << chunks;
    cached += f.fresh_tokens;
    ++chunks;
  }
  EXPECT_EQ(cached, 32768);
  EXPECT_GE(chunks, static_cast<int>(std::ceil(whole / s.policy.compute_quota)));
}

// Basic places by round-robin over all engines: 8 one-round agents on one node of 2 PE GPUs and one of 2 DE GPUs
// put exactly 4 requests on each engine.
TEST(ClusterMechanisms, BasicPlacesRoundRobinOverEngines) {
  Scenario s = test::small_scenario(1, 1, 2);
  s.policy.name = "basic";
  std::vector<Agent> agents;
  for (int i = 0; i < 8; ++i) agents.push_back(agent(i, {{1000 + 100 * i, 4, 0}}));
  FakeBackend be(FakeRates{50e9, 50e9, 2});
  Cluster c(s, agents, be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  std::map<int, int> pe, de;
  for (const auto& r : c.requests()) ++pe[r.pe], ++de[r.de];
  EXPECT_EQ(pe, (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(de, (std::map<int, int>{{2, 4}, {3, 4}}));
}

// §A.4: alpha = the tokens one node's SNIC reads in alpha_seconds; beta = the tokens one GPU prefills in
// beta_seconds, at the workload's mean round shape (mean context 336, mean append 1400 over the three rounds
// below), with the linear layers at full efficiency.
TEST(ClusterMechanisms, AlphaAndBetaConvertSecondsToTokens) {
  Scenario s = test::small_scenario();
  s.policy.alpha_seconds = 3;
  s.policy.beta_seconds = 5;
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  Cluster c(s, {agent(0, {{1000, 10, 0}, {200, 5, 0}}), agent(1, {{3000, 20, 0}})}, be);
  const double kv = s.model.kv_bytes_per_token();
  EXPECT_EQ(c.view().alpha_tokens, static_cast<int64_t>(3 * 50e9 / kv));
  const int64_t ctx = (0 + 1010 + 0) / 3, app = (1000 + 200 + 3000) / 3;
  const double per_layer = c.cost().attention_layer_time(ctx, app) +
                           app * 2.0 * s.model.active_params / s.model.n_layers /
                               (s.topology.gpu.flops * s.model.linear_efficiency);
  const double tokens_per_s = (ctx + app) / (per_layer * s.model.n_layers);
  EXPECT_EQ(c.view().beta_tokens, static_cast<int64_t>(5 * tokens_per_s));
  EXPECT_GT(c.view().beta_tokens, 1000);  // seconds were converted: beta is thousands of tokens, not 5
}

// Group leaders fetch at multiples of fetch_period (phase-shifted per group), never at arrival: an agent that
// arrives at t = 0 is placed at the first fetch strictly after it, t = fetch_period on the only PE group.
TEST(ClusterMechanisms, LeadersFetchOnlyAtFetchPeriodInstants) {
  for (double period : {0.01, 0.05}) {
    Scenario s = test::small_scenario();
    s.policy.name = "dualpath";
    s.deployment.fetch_period = period;
    FakeBackend be(FakeRates{50e9, 50e9, 1});
    Cluster c(s, {agent(0, {{1000, 2, 0}})}, be);
    c.start();
    be.run();
    ASSERT_TRUE(c.finished()) << c.stall_report();
    EXPECT_NEAR(c.requests().at(0).t.pe_assigned, period, 1e-12) << "fetch period " << period;
  }
}
