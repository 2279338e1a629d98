// EP all-to-all bytes on the RDMA network: a prefill forward (DeepEP normal kernels) sends a token once per remote
// node holding one of its experts; a decode step (low-latency kernels) one copy per remote expert.
#include <gtest/gtest.h>

#include <cmath>

#include "core/cluster/cluster.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;

TEST(EpBytes, PrefillCrossesOncePerRemoteNode) {
  ModelSpec m;
  m.ep_bytes_per_token_layer = 172032;  // 7168 x 8 x 3
  m.moe_topk = 8;
  // Two nodes: the other node holds one of the 8 experts unless all 8 are local: 1 - 2^-8.
  EXPECT_NEAR(m.prefill_ep_rdma_bytes_per_token_layer(2), 7168 * 3 * (1 - std::pow(0.5, 8)), 1e-6);
  // Four nodes: 3 remote nodes, each missed with probability (3/4)^8.
  EXPECT_NEAR(m.prefill_ep_rdma_bytes_per_token_layer(4), 7168 * 3 * 3 * (1 - std::pow(0.75, 8)), 1e-6);
  EXPECT_EQ(m.prefill_ep_rdma_bytes_per_token_layer(1), 0);
  // Decode: every copy to an expert on another node.
  EXPECT_NEAR(m.decode_ep_rdma_bytes_per_token_layer(4), 172032 * 0.75, 1e-6);
  // Without moe_topk every routed copy crosses on its own, as decode does.
  m.moe_topk = 0;
  EXPECT_NEAR(m.prefill_ep_rdma_bytes_per_token_layer(2), 172032 * 0.5, 1e-6);
}

// One 1,000-token prompt on a PE group spanning two one-GPU nodes: its engine sends its tokens' copies, the other
// engine its share of the group mean (it receives and returns the first one's tokens), over every layer.
TEST(EpBytes, ForwardCollectivesCarryTheDedupedBytes) {
  for (int topk : {8, 0}) {
    Scenario s = test::small_scenario(2, 1, 1);
    s.deployment.pe_group_gpus = 2;
    s.model.ep_bytes_per_token_layer = 172032;
    s.model.moe_topk = topk;
    dualpath::test::FakeBackend be(dualpath::test::FakeRates{50e9, 50e9, 1});
    // One generated token: no decode step, so only the forward's collectives.
    Cluster c(s, {test::agent(0, {{1000, 1, 0}})}, be);
    c.start();
    be.run();
    ASSERT_TRUE(c.finished()) << c.stall_report();
    const double per_token = s.model.prefill_ep_rdma_bytes_per_token_layer(2);
    EXPECT_NEAR(c.totals().collective, 1.5 * 1000 * per_token * s.model.n_layers, 1e-6 * c.totals().collective)
        << "moe_topk " << topk;
  }
}
