// Compute-time model of one GPU: per-layer attention from a batch's (cached, new) token pairs, linear/FFN time
// from tokens (attention projections and shared experts apart from the routed experts), the decode EP
// all-to-all's critical-path time, and a decode layer's parts. Roofline with efficiency factors
// (ModelSpec::*_efficiency) until the hardware backend calibrates them; every constant and its source in
// docs/cost-model.md.
#pragma once

#include <cstdint>
#include <vector>

#include "core/config/scenario.hpp"

namespace dualpath {

// The compute network as the decode EP all-to-all sees it: per-GPU CNIC bandwidth, the share of it DeepEP's
// low-latency kernels achieve, and the fixed time each of dispatch and combine pays (latency-bound below a few
// dozen tokens per GPU; the alpha of an alpha-beta model whose beta is the achieved rate).
//
// Prefill uses DeepEP's normal kernels, whose dispatch first runs a notify step (global barriers, then the host waits
// for the GPU's receive counts to size its buffers: DeepEP docs/legacy.md) before any byte moves; `normal_sync` is
// that fixed time per prefill layer, paid by a group spanning more than one node (`gpus_per_node` says when).
struct EpNetwork {
  double cnic_bw = 0;  // 0 = charge no EP time (a cost model without a topology)
  double rdma_efficiency = 1;
  double op_latency = 0;
  double normal_sync = 0;
  int gpus_per_node = 0;  // 0 = unknown: no group spans nodes
  // A calibration's fitted fixed costs (Topology::FixedCosts; docs/calibration.md), 0 in the sourced model.
  Topology::FixedCosts fixed{};
  static EpNetwork of(const Topology& t) {
    return {t.cnic_bw, t.ep_rdma_efficiency, t.ep_op_latency, t.ep_normal_sync, t.gpus_per_node, t.fixed_costs};
  }
};

// One layer's linear work on one GPU: the replicated weights (projections, shared experts, dense FFN) and the
// routed experts the GPU holds.
struct LinearParts {
  double dense = 0;
  double experts = 0;
  double total() const { return dense + experts; }
};

// One decode step's time per layer on the group's critical path, by part, summed over its micro-batches. `hidden`
// is what overlap takes off the plain sum: with two micro-batches, compute + ep - 2 x max(compute, ep) per half;
// with one, ModelSpec::decode_comm_overlap x min(compute, ep).
struct DecodeLayerParts {
  double attention = 0;  // the slowest engine's attention (the group steps in lockstep)
  double dense = 0;
  double experts = 0;
  double kernels = 0;  // fixed per-kernel time (ModelSpec::kernels_per_layer x GpuSpec::kernel_overhead per half)
  // A calibration's fitted fixed part (Topology::FixedCosts): decode_layer per half plus decode_request per request
  // of the most loaded engine; 0 in the sourced model.
  double fitted = 0;
  double ep = 0;       // dispatch + combine
  double hidden = 0;
  double compute() const { return attention + dense + experts + kernels + fitted; }
  double total() const { return compute() + ep - hidden; }
};

// One engine's share of a decode step: requests (fractional where one finishes inside a chunk), the sum of their
// contexts and of their contexts capped at DSA's top-k, and the number of requests it holds.
struct DecodeEngineLoad {
  double batch = 0;
  double sum_context = 0, sum_capped_context = 0;
  int64_t requests = 0;
};

// A decode step of a group: its layer by part (roofline; all zero from a profile, which measures the whole), the
// seconds per generated token, and the engine that sets the pace.
struct DecodeStep {
  DecodeLayerParts layer;
  double token_seconds = 0;
  size_t slowest = 0;
};

class CostModel {
 public:
  CostModel(const ModelSpec& model, const GpuSpec& gpu, EpNetwork net = {});

  const ModelSpec& model() const { return model_; }

  // Attention time of one layer for one request's (cached, fresh) pair on one GPU (seconds), at the prefill
  // kernels' efficiency.
  double attention_layer_time(int64_t cached, int64_t fresh) const;
  // Fixed time of one prefill layer of a `group_gpus` group: kernels_per_layer x kernel_overhead, plus the normal-mode
  // dispatch's notify (EpNetwork::normal_sync) when the group spans nodes, plus a calibration's fitted
  // fixed_costs.prefill_layer.
  double prefill_layer_overhead(int group_gpus = 1) const;
  // Linear layers (projections, FFN or MoE experts) of one layer for `tokens` tokens on one GPU whose
  // weight share is `weight_bytes_per_gpu` (reading the weights bounds small batches).
  double linear_layer_time(double tokens, double weight_bytes_per_gpu) const;
  // One decode step's attention on one GPU, one layer, for requests whose contexts are given; with MTP each
  // request's 1 + mtp_depth queries share one read of its KV.
  double decode_attention_layer_time(double sum_context, double sum_capped_context, int64_t n_requests) const;
  // Linear work of one layer on one GPU of a `group_gpus` engine group, `tokens` per GPU. With routed experts
  // (ModelSpec::routed_experts) the replicated part and the experts are separate rooflines and the experts'
  // weight read counts only the experts the group's tokens activate; otherwise linear_layer_time on this GPU's
  // weight share.
  LinearParts linear_layer(double tokens, int group_gpus) const;
  // Decode EP dispatch + combine of one layer for `tokens` per GPU in a group spanning `nodes` nodes: the RDMA
  // bytes at the achieved CNIC rate plus one hop latency each way (DeepEP's low-latency kernels are
  // bandwidth-bound at production batches; docs/cost-model.md). 0 within one node or without a network.
  double decode_ep_layer_time(double tokens, int nodes) const;
  // A decode layer's parts for a group whose slowest engine's attention is `attention`, `mean_batch` requests
  // per GPU (the experts see the mean: EP spreads them), the largest engine batch `max_batch` (its dispatch
  // sends the most and everyone waits for it), `group_gpus` GPUs over `nodes` nodes. Each request carries
  // 1 + mtp_depth tokens; with two micro-batches each half reads the weights and pays the kernels once.
  DecodeLayerParts decode_layer(double attention, double mean_batch, double max_batch, int group_gpus,
                                int nodes) const;
  // Seconds per generated token of a decode step whose layer is `layer`: the step runs n_layers + mtp_depth
  // layers and yields tokens_per_decode_step() tokens per request.
  double decode_token_time(const DecodeLayerParts& layer) const { return model_.decode_layers_per_token() * layer.total(); }

  // The timing source the engines use (ModelSpec::timing): the roofline above, or the measured profile.
  // A prefill layer's attention for one request on a GPU of a `group_gpus` group, and its linear/MoE work at
  // `tokens` fresh tokens per GPU (fixed kernel costs included).
  double prefill_attention(int64_t cached, int64_t fresh, int group_gpus) const;
  double prefill_linear(double tokens, int group_gpus) const;
  // A decode step of a group of `engines.size()` GPUs over `nodes` nodes: the roofline's lockstep (the slowest
  // engine's attention, the experts on the mean batch, the all-to-all of the largest), or the profile's time at the
  // most loaded engine's batch and mean context.
  DecodeStep decode_step(const std::vector<DecodeEngineLoad>& engines, int nodes) const;
  bool profiled() const { return model_.timing == StepTiming::Profile && model_.profile; }

  // FLOPs of the attention of one layer (for ComputeWork accounting).
  double attention_layer_flops(int64_t cached, int64_t fresh) const;
  double linear_flops_per_token_layer() const { return 2.0 * model_.active_params / model_.n_layers; }

  // Weights held by one GPU of a group of `group_gpus` engines: routed experts are sharded by EP and the rest is
  // replicated (DP attention); without routed_experts all weights are split; dense models are replicated per
  // engine (data parallel).
  double weight_bytes_per_gpu(int group_gpus) const;
  bool sharded_weights() const { return model_.ep_bytes_per_token_layer > 0; }

  // The paper's cache-compute ratio (§1.1, Table 1) in GB per PFLOP: the KV bytes a round with `context` cached
  // tokens loads over the FLOPs of its `append` fresh tokens (linear work plus attention, DSA's indexer over the
  // whole context). `with_indexer_keys` counts the indexer cache in the bytes whatever the model's
  // count_indexer_cache: Table 1 fits only without it (digest §1.1), while a hit needs it (issue 62).
  double cache_compute_ratio(int64_t context, int64_t append, bool with_indexer_keys) const;

  // Prompt tokens (cached + fresh) one GPU prefills per second at a typical request shape; used to derive beta.
  double prefill_prompt_tokens_per_second(int64_t mean_context, int64_t mean_append) const;

 private:
  // Sum over the fresh queries q = 1..fresh of the keys each attends: min(cap, cached + q).
  static double capped_pairs(int64_t cached, int64_t fresh, double cap);
  ModelSpec model_;
  GpuSpec gpu_;
  EpNetwork net_;
};

// The rule every command applies before simulating (run, check, plan): each side's weights must leave HBM for KV
// on every GPU of its EP groups. weights_fit_problem says why a side's groups do not fit ("" when they do);
// check_weights_fit throws it as an InputError naming the scenario file.
std::string weights_fit_problem(const Scenario& sc, const char* side, int group_gpus);
void check_weights_fit(const Scenario& sc);
// With model.timing = profile, the profile must hold a prefill table for the PE group size and a decode table for
// the DE group size, and the topology no calibration fixed costs (the profile holds them); InputError naming the
// profile file and the sizes it has, or the fixed costs.
void check_step_profile(const Scenario& sc);

}  // namespace dualpath
