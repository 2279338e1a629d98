// The cost model against hand-computed closed forms.
#include <gtest/gtest.h>

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
