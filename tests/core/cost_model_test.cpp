// The cost model against hand-computed closed forms.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/cost/cost_model.hpp"
#include "test_scenario.hpp"

using namespace dualpath;

TEST(CostModel, DenseAttentionIsCausalPairsTimesFlops) {
  ModelSpec m;
  m.n_layers = 1;
  m.attn_flops_per_query_key = 1;
  m.attention_efficiency = 1;
  m.kv_bytes_per_token_layer = 0;
  GpuSpec g{1.0, 1, 1e30};
  CostModel c(m, g);
  // 3 fresh after 10 cached: 11 + 12 + 13 pairs.
  EXPECT_DOUBLE_EQ(c.attention_layer_flops(10, 3), 36);
  EXPECT_DOUBLE_EQ(c.attention_layer_time(10, 3), 36);
}

TEST(CostModel, SparseAttentionCapsKeysAtTopK) {
  ModelSpec m;
  m.n_layers = 1;
  m.attn_flops_per_query_key = 1;
  m.sparse_topk = 12;
  m.indexer_flops_per_query_key = 0;
  CostModel c(m, GpuSpec{1, 1, 1});
  EXPECT_DOUBLE_EQ(c.attention_layer_flops(10, 3), 11 + 12 + 12);
  m.indexer_flops_per_query_key = 2;  // indexer sees every key
  CostModel c2(m, GpuSpec{1, 1, 1});
  EXPECT_DOUBLE_EQ(c2.attention_layer_flops(10, 3), 35 + 2 * 36);
}

TEST(CostModel, LinearIsRooflineOfFlopsAndWeights) {
  ModelSpec m;
  m.n_layers = 2;
  m.active_params = 1e9;  // 1 GFLOP per token per layer
  m.linear_efficiency = 0.5;
  m.hbm_efficiency = 1;
  CostModel c(m, GpuSpec{1e12, 80e9, 1e12});
  // 1000 tokens: 1e12 FLOP / 5e11 = 2 s; weights 10 GB / 2 layers / 1e12 = 5 ms.
  EXPECT_DOUBLE_EQ(c.linear_layer_time(1000, 10e9), 2.0);
  EXPECT_DOUBLE_EQ(c.linear_layer_time(1, 10e9), 5e-3);  // weight-read bound
}

TEST(CostModel, WeightsShardedOnlyForExpertParallelModels) {
  ModelSpec m;
  m.n_layers = 1;
  m.weight_bytes = 64e9;
  EXPECT_DOUBLE_EQ(CostModel(m, GpuSpec{1, 1, 1}).weight_bytes_per_gpu(16), 64e9);
  m.ep_bytes_per_token_layer = 1;
  EXPECT_DOUBLE_EQ(CostModel(m, GpuSpec{1, 1, 1}).weight_bytes_per_gpu(16), 4e9);
}

// A toy MoE: 2 layers, 4 experts of 1 GB each per layer (8 GB), 2 GB of replicated weights, top-2 routing,
// 1 B per parameter so an expert costs 2 FLOP per byte per token routed to it.
namespace {
ModelSpec toy_moe() {
  ModelSpec m;
  m.n_layers = 2;
  m.weight_bytes = 10e9;
  m.routed_experts = 4;
  m.expert_weight_bytes = 8e9;
  m.moe_topk = 2;
  m.active_params = 2e9 + 2 * 2 * 1e9;  // replicated 2e9 + 2 layers x top-2 x 1e9
  m.ep_bytes_per_token_layer = 1000;
  m.linear_efficiency = 1;
  m.hbm_efficiency = 1;
  return m;
}
}  // namespace

TEST(CostModel, EpShardsOnlyTheRoutedExperts) {
  const ModelSpec m = toy_moe();
  EXPECT_DOUBLE_EQ(CostModel(m, GpuSpec{1, 1, 1}).weight_bytes_per_gpu(4), 2e9 + 8e9 / 4);
}

TEST(CostModel, MoeLinearSplitsReplicatedWeightsAndExperts) {
  const ModelSpec m = toy_moe();
  const CostModel c(m, GpuSpec{1e15, 80e9, 1e12});
  // One token on a 4-GPU group: replicated part reads 1 GB per layer (1 ms at 1 TB/s); FLOPs are negligible.
  // Experts: the GPU holds one; the group's 4 tokens x 2 routings leave it idle with (1 - 2/4)^4 = 1/16.
  const LinearParts one = c.linear_layer(1, 4);
  EXPECT_NEAR(one.dense, 1e-3, 1e-12);
  EXPECT_NEAR(one.experts, (1 - 1.0 / 16) * 1e9 / 1e12, 1e-12);
  // 1e6 tokens: compute-bound. Replicated 1e9 params/layer x 2 FLOP; experts top-2 x 1e9 x 2 FLOP, per token.
  const LinearParts big = c.linear_layer(1e6, 4);
  EXPECT_NEAR(big.dense, 1e6 * 2e9 / 1e15, 1e-9);
  EXPECT_NEAR(big.experts, 1e6 * 4e9 / 1e15, 1e-9);
}

TEST(CostModel, DecodeAllToAllIsRdmaBytesAtTheAchievedRate) {
  const ModelSpec m = toy_moe();
  // 4 nodes: 3/4 of 1000 B per token cross RDMA; 100 tokens at 0.5 x 1 GB/s plus a 5 us hop each way.
  const CostModel c(m, GpuSpec{1e15, 80e9, 1e12}, EpNetwork{1e9, 0.5, 5e-6});
  EXPECT_NEAR(c.decode_ep_layer_time(100, 4), 100 * 750 / 0.5e9 + 10e-6, 1e-12);
  EXPECT_EQ(c.decode_ep_layer_time(100, 1), 0);  // one node: NVLink, not charged
  EXPECT_EQ(CostModel(m, GpuSpec{1e15, 80e9, 1e12}).decode_ep_layer_time(100, 4), 0);  // no network given
}

TEST(CostModel, DecodeOverlapHidesTheShorterOfComputeAndAllToAll) {
  ModelSpec m = toy_moe();
  m.decode_comm_overlap = 0.5;
  const CostModel c(m, GpuSpec{1e15, 80e9, 1e12}, EpNetwork{1e9, 0.5, 0});
  const DecodeLayerParts p = c.decode_layer(2e-3, 100, 120, 4, 4);
  EXPECT_NEAR(p.ep, 120 * 750 / 0.5e9, 1e-12);  // the largest batch sends the most
  EXPECT_NEAR(p.hidden, 0.5 * std::min(p.compute(), p.ep), 1e-15);
  EXPECT_NEAR(p.total(), p.attention + p.dense + p.experts + p.ep - p.hidden, 1e-15);
}

// Every kernel of a layer pays the GPU's fixed time, once per micro-batch in decode and once per prefill layer.
TEST(CostModel, KernelsPayTheFixedTimeOncePerMicroBatch) {
  ModelSpec m = toy_moe();
  m.kernels_per_layer = 10;
  const GpuSpec gpu{1e15, 80e9, 1e12, 3e-6};
  const CostModel c(m, gpu, EpNetwork{1e9, 0.5, 0});
  EXPECT_NEAR(c.prefill_layer_overhead(), 30e-6, 1e-15);
  const DecodeLayerParts one = c.decode_layer(2e-3, 100, 100, 4, 4);
  EXPECT_NEAR(one.kernels, 30e-6, 1e-15);
  EXPECT_NEAR(one.total(), one.attention + one.dense + one.experts + 30e-6 + one.ep, 1e-15);  // nothing hidden
  m.decode_micro_batches = 2;
  EXPECT_NEAR(CostModel(m, gpu, EpNetwork{1e9, 0.5, 0}).decode_layer(2e-3, 100, 100, 4, 4).kernels, 60e-6, 1e-15);
}

// Two micro-batches: each half reads the weights and launches its kernels, and its compute runs while the other
// half's all-to-all is in flight, so a layer takes 2 x max(compute of a half, all-to-all of a half).
TEST(CostModel, TwoMicroBatchesTakeTwiceTheLongerHalf) {
  ModelSpec m = toy_moe();
  m.decode_micro_batches = 2;
  const CostModel c(m, GpuSpec{1e15, 80e9, 1e12}, EpNetwork{1e9, 0.5, 5e-6});
  // 4 nodes, 100 requests per GPU, the largest 120: a half sends 60 x 750 B at 0.5 GB/s plus 2 x 5 us.
  const DecodeLayerParts p = c.decode_layer(2e-3, 100, 120, 4, 4);
  const double ep_half = 60 * 750 / 0.5e9 + 10e-6;
  const LinearParts lin_half = c.linear_layer(50, 4);
  const double compute_half = 1e-3 + lin_half.total();
  EXPECT_NEAR(p.ep, 2 * ep_half, 1e-15);
  EXPECT_NEAR(p.dense, 2 * lin_half.dense, 1e-15);  // the replicated weights are read twice
  EXPECT_NEAR(p.total(), 2 * std::max(compute_half, ep_half), 1e-15);
  // Weight-bound small batches: two halves read the weights twice and the overlap costs more than it hides.
  ModelSpec serial = toy_moe();
  const double one = CostModel(serial, GpuSpec{1e15, 80e9, 1e12}, EpNetwork{1e9, 0.5, 5e-6})
                         .decode_layer(1e-6, 1, 1, 4, 4).total();
  EXPECT_GT(c.decode_layer(1e-6, 1, 1, 4, 4).total(), one);
}

// MTP: a step carries 1 + depth tokens per request through n_layers + depth layers and yields
// 1 + a + ... + a^depth tokens; the KV is read once for all of a request's queries.
TEST(CostModel, MultiTokenPredictionSharesAStepOverTheTokensItYields) {
  ModelSpec m = toy_moe();
  m.mtp_depth = 1;
  m.mtp_accept = 0.8;
  EXPECT_DOUBLE_EQ(m.tokens_per_decode_step(), 1.8);
  EXPECT_DOUBLE_EQ(m.decode_layers_per_token(), 3 / 1.8);
  m.mtp_depth = 2;
  EXPECT_DOUBLE_EQ(m.tokens_per_decode_step(), 1 + 0.8 + 0.64);
  m.mtp_depth = 1;
  m.kv_bytes_per_token_layer = 100;
  m.attn_flops_per_query_key = 1000;
  const CostModel c(m, GpuSpec{1e12, 80e9, 1e12}, EpNetwork{1e9, 0.5, 0});
  // 1,000 keys: 1e5 B read once (0.1 us at 1 TB/s); 2 queries x 1e6 FLOP at 0.4 x 1 TFLOP/s = 5 us.
  EXPECT_NEAR(c.decode_attention_layer_time(1000, 1000, 1), 2 * 1e6 / 0.4e12, 1e-15);
  const DecodeLayerParts p = c.decode_layer(0, 10, 10, 4, 4);
  EXPECT_NEAR(p.ep, 20 * 750 / 0.5e9, 1e-15);  // two tokens per request go through the all-to-all
  EXPECT_NEAR(c.decode_token_time(p), 3 * p.total() / 1.8, 1e-15);
}

// Prefill attention may run at its own kernels' share of the peak; absent, at the decode one.
TEST(CostModel, PrefillAttentionHasItsOwnEfficiency) {
  ModelSpec m;
  m.n_layers = 1;
  m.attn_flops_per_query_key = 1000;
  m.kv_bytes_per_token_layer = 1;
  m.attention_efficiency = 0.5;
  const GpuSpec g{1e12, 80e9, 1e15};
  const double decode_eff = CostModel(m, g).attention_layer_time(0, 100);
  m.prefill_attention_efficiency = 1;
  EXPECT_NEAR(CostModel(m, g).attention_layer_time(0, 100), decode_eff / 2, 1e-18);
}

// The prefill EP dispatch's notify (issue 62): a fixed time per prefill layer, paid only by a group spanning nodes.
TEST(CostModel, PrefillNotifyIsPaidByGroupsSpanningNodes) {
  ModelSpec m;
  m.n_layers = 4;
  m.kernels_per_layer = 10;
  m.ep_bytes_per_token_layer = 1;  // an expert-parallel model (sharded weights)
  const GpuSpec gpu{1e15, 80e9, 1e12, 2e-6};
  const CostModel c(m, gpu, EpNetwork{50e9, 0.9, 40e-6, 1e-3, 8});
  EXPECT_NEAR(c.prefill_layer_overhead(8), 10 * 2e-6, 1e-15);           // one node: kernels only
  EXPECT_NEAR(c.prefill_layer_overhead(16), 10 * 2e-6 + 1e-3, 1e-15);   // two nodes: + the notify
  EXPECT_NEAR(c.prefill_linear(100, 16) - c.prefill_linear(100, 8) -
                  (c.linear_layer(100, 16).total() - c.linear_layer(100, 8).total()),
              1e-3, 1e-12);  // and the engines' prefill stage pays it
  EXPECT_NEAR(CostModel(m, gpu, EpNetwork{50e9, 0.9, 40e-6, 0, 8}).prefill_layer_overhead(16), 10 * 2e-6, 1e-15);
}
