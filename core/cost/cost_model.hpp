// Compute-time model of one GPU: per-layer attention from a batch's (cached, new) token pairs, linear/FFN
// time from tokens, decode step time. Roofline with efficiency factors (ModelSpec::*_efficiency) until the
// hardware backend calibrates them; derivation in docs/cost-model.md.
#pragma once

#include <cstdint>
#include <vector>

#include "core/config/scenario.hpp"

namespace dualpath {

// One request's share of a prefill forward: `cached` tokens whose KV is loaded, `fresh` tokens computed now.
struct PrefillShape {
  int64_t cached = 0;
  int64_t fresh = 0;
};

class CostModel {
 public:
  CostModel(const ModelSpec& model, const GpuSpec& gpu);

  const ModelSpec& model() const { return model_; }

  // Attention time of one layer for one request's (cached, fresh) pair on one GPU (seconds).
  double attention_layer_time(int64_t cached, int64_t fresh) const;
  // Linear layers (projections, FFN or MoE experts) of one layer for `tokens` tokens on one GPU whose
  // weight share is `weight_bytes_per_gpu` (reading the weights bounds small batches).
  double linear_layer_time(double tokens, double weight_bytes_per_gpu) const;
  // One decode step's attention on one GPU, one layer, for requests whose contexts are given.
  double decode_attention_layer_time(double sum_context, double sum_capped_context, int64_t n_requests) const;

  // FLOPs of the attention of one layer (for ComputeWork accounting).
  double attention_layer_flops(int64_t cached, int64_t fresh) const;
  double linear_flops_per_token_layer() const { return 2.0 * model_.active_params / model_.n_layers; }

  // Weights held by one GPU of a group of `group_gpus` engines: MoE experts are sharded by EP,
  // dense models are replicated per engine (data parallel).
  double weight_bytes_per_gpu(int group_gpus) const;
  bool sharded_weights() const { return model_.ep_bytes_per_token_layer > 0; }

  // Prompt tokens (cached + fresh) one GPU prefills per second at a typical request shape; used to derive beta.
  double prefill_prompt_tokens_per_second(int64_t mean_context, int64_t mean_append) const;

 private:
  // Sum over the fresh queries q = 1..fresh of the keys each attends: min(cap, cached + q).
  static double capped_pairs(int64_t cached, int64_t fresh, double cap);
  ModelSpec model_;
  GpuSpec gpu_;
};

}  // namespace dualpath
