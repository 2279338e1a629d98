#include "core/cost/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "core/config/input_error.hpp"
#include "core/mutation/mutant.hpp"
#include "core/cost/step_profile.hpp"

namespace dualpath {

CostModel::CostModel(const ModelSpec& model, const GpuSpec& gpu, EpNetwork net)
    : model_(model), gpu_(gpu), net_(net) {}

double CostModel::capped_pairs(int64_t cached, int64_t fresh, double cap) {
  // Causal attention: query q (1-based among the fresh tokens) sees cached + q keys, capped at `cap`
  // (DSA top-k). Closed form of sum_{q=1..fresh} min(cap, cached + q).
  const double c = static_cast<double>(cached);
  const double n = static_cast<double>(fresh);
  if (n <= 0) return 0;
  const double uncapped_until = std::clamp(cap - c, 0.0, n);  // queries with cached + q <= cap
  const double k = std::floor(uncapped_until);
  const double below = k * c + k * (k + 1) / 2;                // sum_{q=1..k} (c + q)
  return k >= n ? below : below + (n - k) * cap;                // (n - k) * inf would be NaN
}

double CostModel::attention_layer_flops(int64_t cached, int64_t fresh) const {
  const double inf = std::numeric_limits<double>::infinity();
  const double cap = model_.sparse_topk > 0 ? static_cast<double>(model_.sparse_topk) : inf;
  double flops = capped_pairs(cached, fresh, cap) * model_.attn_flops_per_query_key;
  if (model_.indexer_flops_per_query_key > 0)  // DSA lightning indexer scores every earlier key
    flops += capped_pairs(cached, fresh, inf) * model_.indexer_flops_per_query_key;
  return flops;
}

double CostModel::attention_layer_time(int64_t cached, int64_t fresh) const {
  if (fresh <= 0) return 0;
  const double eff = model_.prefill_attention_efficiency > 0 ? model_.prefill_attention_efficiency
                                                              : model_.attention_efficiency;
  const double compute = attention_layer_flops(cached, fresh) / (gpu_.flops * eff);
  // The cached KV of this layer is read from HBM at least once.
  const double kv_read = static_cast<double>(cached + fresh) * model_.kv_bytes_per_token_one_layer() /
                         (gpu_.hbm_bw * model_.hbm_efficiency);
  return std::max(compute, kv_read);
}

double CostModel::prefill_layer_overhead(int group_gpus) const {
  const bool spans_nodes = net_.gpus_per_node > 0 && group_gpus > net_.gpus_per_node && sharded_weights() &&
                           !mutant("no_normal_sync");
  return model_.kernels_per_layer * gpu_.kernel_overhead + (spans_nodes ? net_.normal_sync : 0.0) +
         net_.fixed.prefill_layer;
}

double CostModel::linear_layer_time(double tokens, double weight_bytes_per_gpu) const {
  if (tokens <= 0) return 0;
  const double compute = tokens * linear_flops_per_token_layer() / (gpu_.flops * model_.linear_efficiency);
  const double weights = weight_bytes_per_gpu / model_.n_layers / (gpu_.hbm_bw * model_.hbm_efficiency);
  return std::max(compute, weights);
}

double CostModel::decode_attention_layer_time(double sum_context, double sum_capped_context,
                                              int64_t n_requests) const {
  if (n_requests <= 0) return 0;
  // Decode is memory-bound: each request reads the KV its query attends to (top-k under DSA) and, under DSA,
  // the indexer keys of its whole context.
  const double hbm = gpu_.hbm_bw * model_.hbm_efficiency;
  const double queries = 1.0 + model_.mtp_depth;
  double bytes = sum_capped_context * model_.kv_bytes_per_token_layer;
  double flops = queries * sum_capped_context * model_.attn_flops_per_query_key;
  if (model_.indexer_flops_per_query_key > 0) {
    bytes += sum_context * model_.indexer_bytes_per_token_layer;
    flops += queries * sum_context * model_.indexer_flops_per_query_key;
  }
  return std::max(bytes / hbm, flops / (gpu_.flops * model_.attention_efficiency));
}

double CostModel::weight_bytes_per_gpu(int group_gpus) const {
  if (!sharded_weights()) return model_.weight_bytes;
  const double n = std::max(1, group_gpus);
  if (model_.routed_experts <= 0) return model_.weight_bytes / n;
  return model_.weight_bytes - model_.expert_weight_bytes + model_.expert_weight_bytes / n;
}

LinearParts CostModel::linear_layer(double tokens, int group_gpus) const {
  LinearParts p;
  if (tokens <= 0) return p;
  if (model_.routed_experts <= 0 || !sharded_weights()) {
    p.dense = linear_layer_time(tokens, weight_bytes_per_gpu(group_gpus));
    return p;
  }
  // Parameters are FP8, one byte each (the model files count weight_bytes that way), so an expert's bytes per
  // layer are its parameters and a token routed to it costs 2 FLOP per byte.
  const double layers = model_.n_layers, experts = model_.routed_experts, k = model_.moe_topk;
  const double n = std::max(1, group_gpus);
  const double expert_layer_bytes = model_.expert_weight_bytes / (experts * layers);
  const double routed_flops = 2.0 * k * expert_layer_bytes;                       // per token, layer
  const double dense_flops = std::max(0.0, linear_flops_per_token_layer() - routed_flops);
  const double dense_bytes = (model_.weight_bytes - model_.expert_weight_bytes) / layers;
  const double rate = gpu_.flops * model_.linear_efficiency;
  const double hbm = gpu_.hbm_bw * model_.hbm_efficiency;
  p.dense = std::max(tokens * dense_flops / rate, dense_bytes / hbm);
  // A GPU holds experts / n experts; one is read when at least one of the group's tokens x k routings picks it
  // (uniform routing, as EPLB aims for).
  const double active = 1.0 - std::pow(1.0 - k / experts, tokens * n);
  p.experts = std::max(tokens * routed_flops / rate, experts / n * active * expert_layer_bytes / hbm);
  return p;
}

double CostModel::decode_ep_layer_time(double tokens, int nodes) const {
  if (tokens <= 0 || nodes <= 1 || net_.cnic_bw <= 0) return 0;
  const double bytes = tokens * model_.decode_ep_rdma_bytes_per_token_layer(nodes);
  if (bytes <= 0) return 0;
  return bytes / (net_.cnic_bw * net_.rdma_efficiency) + 2 * net_.op_latency;
}

DecodeLayerParts CostModel::decode_layer(double attention, double mean_batch, double max_batch, int group_gpus,
                                         int nodes) const {
  DecodeLayerParts p;
  const double q = 1.0 + model_.mtp_depth;  // tokens per request per step
  const double mb = model_.decode_micro_batches;
  // One micro-batch: its share of the requests, its own weight reads, its own kernels, its own dispatch/combine.
  const LinearParts lin = linear_layer(q * mean_batch / mb, group_gpus);
  const double ep = decode_ep_layer_time(q * std::max(mean_batch, max_batch) / mb, nodes);
  const double kernels = model_.kernels_per_layer * gpu_.kernel_overhead;
  p.attention = attention;
  p.dense = mb * lin.dense;
  p.experts = mb * lin.experts;
  p.kernels = mb * kernels;
  // A calibration's fixed part: per micro-batch, and per request of the most loaded engine (the group waits for it).
  const double fitted_half = net_.fixed.decode_layer + net_.fixed.decode_request * max_batch / mb;
  p.fitted = mb * fitted_half;
  p.ep = mb * ep;
  if (model_.decode_micro_batches > 1) {
    // Each half's compute runs while the other half's all-to-all is in flight: the layer takes the longer of the
    // two per half (the pipeline spans layers, so its fill is paid once per step, not per layer: left out).
    const double compute = attention / mb + lin.total() + kernels + fitted_half;
    p.hidden = p.compute() + p.ep - mb * std::max(compute, ep);
  } else {
    p.hidden = model_.decode_comm_overlap * std::min(p.compute(), p.ep);
  }
  return p;
}

double CostModel::prefill_attention(int64_t cached, int64_t fresh, int group_gpus) const {
  if (!profiled()) return attention_layer_time(cached, fresh);
  if (fresh <= 0) return 0;
  const PrefillProfile* t = model_.profile->prefill_for(group_gpus);
  if (!t) throw InputError(model_.profile->file, "no prefill table for groups of " + std::to_string(group_gpus) + " GPUs");
  return profile_at(t->attention, static_cast<double>(cached), static_cast<double>(fresh), model_.profile->file,
                    "prefill attention of EP" + std::to_string(group_gpus));
}

double CostModel::prefill_linear(double tokens, int group_gpus) const {
  if (!profiled()) return linear_layer(tokens, group_gpus).total() + prefill_layer_overhead(group_gpus);
  if (tokens <= 0) return 0;
  const PrefillProfile* t = model_.profile->prefill_for(group_gpus);
  if (!t) throw InputError(model_.profile->file, "no prefill table for groups of " + std::to_string(group_gpus) + " GPUs");
  return profile_at(t->linear, tokens, model_.profile->file, "prefill linear work of EP" + std::to_string(group_gpus));
}

DecodeStep CostModel::decode_step(const std::vector<DecodeEngineLoad>& engines, int nodes) const {
  DecodeStep s;
  if (engines.empty()) return s;
  const int group_gpus = static_cast<int>(engines.size());
  double max_attn = 0, max_batch = 0, batch_sum = 0;
  for (size_t i = 0; i < engines.size(); ++i) {
    const DecodeEngineLoad& e = engines[i];
    batch_sum += e.batch;
    if (profiled()) {
      if (e.batch > max_batch || i == 0) max_batch = e.batch, s.slowest = i;
      continue;
    }
    const double attn = decode_attention_layer_time(e.sum_context, e.sum_capped_context, e.requests);
    if (attn > max_attn || i == 0) max_attn = attn, s.slowest = i;
    max_batch = std::max(max_batch, e.batch);
  }
  if (profiled()) {
    const DecodeProfile* t = model_.profile->decode_for(group_gpus);
    if (!t) throw InputError(model_.profile->file, "no decode table for groups of " + std::to_string(group_gpus) + " GPUs");
    // The group steps in lockstep and waits for its most loaded engine: a measured (balanced) table is looked up at
    // that engine's batch and mean context. Where the group is unbalanced and its mean batch is below one request
    // per GPU, the roofline reads fewer experts than the table's balanced step did (docs/cost-model.md).
    const DecodeEngineLoad& e = engines[s.slowest];
    const double context = e.batch > 0 ? e.sum_context / e.batch : 0;
    s.token_seconds = profile_at(t->token_seconds, e.batch, context, model_.profile->file,
                                 "decode step of EP" + std::to_string(group_gpus));
    return s;
  }
  s.layer = decode_layer(max_attn, batch_sum / group_gpus, max_batch, group_gpus, nodes);
  s.token_seconds = decode_token_time(s.layer);
  return s;
}

double CostModel::cache_compute_ratio(int64_t context, int64_t append, bool with_indexer_keys) const {
  const double bytes = static_cast<double>(context) * model_.n_layers *
                       (model_.kv_bytes_per_token_layer + (with_indexer_keys ? model_.indexer_bytes_per_token_layer : 0));
  const double flops = model_.n_layers * (attention_layer_flops(context, append) +
                                          static_cast<double>(append) * linear_flops_per_token_layer());
  return flops > 0 ? bytes / flops * 1e6 : 0;  // bytes per FLOP = 1e-9 GB / 1e-15 PFLOP
}

double CostModel::prefill_prompt_tokens_per_second(int64_t mean_context, int64_t mean_append) const {
  // One request of the mean shape, its linear part at full batch efficiency (compute-bound).
  const double per_layer = attention_layer_time(mean_context, mean_append) +
                           static_cast<double>(mean_append) * linear_flops_per_token_layer() /
                               (gpu_.flops * model_.linear_efficiency);  // no fixed costs: a full batch's share
  const double per_request = per_layer * model_.n_layers;
  return per_request > 0 ? static_cast<double>(mean_context + mean_append) / per_request : 0;
}

std::string weights_fit_problem(const Scenario& sc, const char* side, int group_gpus) {
  const bool prefill = side[0] == 'p';
  const Topology& t = prefill ? sc.pe_topology() : sc.de_topology();  // each role's own GPUs (mixed hardware)
  const CostModel cost(sc.model, t.gpu);
  const double w = cost.weight_bytes_per_gpu(group_gpus);
  if (t.gpu.hbm_bytes - w > 0) return "";
  std::ostringstream m;
  m << "the " << side << " side's groups of " << group_gpus << " GPUs hold " << w / 1e9
    << " GB of weights per GPU: they do not fit in " << t.gpu.hbm_bytes / 1e9 << " GB of HBM";
  // What would: the smallest larger group (in whole multiples of this one) whose share fits, or a larger HBM.
  const std::string key = std::string("deployment.") + (prefill ? "pe" : "de") + "_group_gpus";
  const std::optional<Topology>& own = prefill ? sc.prefill_topology : sc.decode_topology;
  const std::string hbm_key = std::string(own ? (prefill ? "prefill_topology" : "decode_topology") : "topology") +
                              ".gpu.hbm_bytes";
  for (int g = group_gpus * 2; g > 0 && g <= 4096; g *= 2)
    if (const double wg = cost.weight_bytes_per_gpu(g); t.gpu.hbm_bytes - wg > 0) {
      m << "; groups of " << g << " GPUs would hold " << wg / 1e9 << " GB each (e.g. --set " << key << "=" << g
        << ", with enough nodes for them)";
      break;
    }
  m << ", or a GPU with more than " << w / 1e9 << " GB of HBM would (" << hbm_key << ")";
  return m.str();
}

void check_step_profile(const Scenario& sc) {
  if (sc.model.timing != StepTiming::Profile || !sc.model.profile) return;
  const StepProfile& p = *sc.model.profile;
  // A calibration's fixed costs are parts of the roofline; a measured profile holds the cluster's own, so charging
  // them again would count them twice (and ignoring them silently would hide the calibration's effect).
  for (const Topology* t : {&sc.pe_topology(), &sc.de_topology()})
    if (t->fixed_costs.any())
      throw InputError(sc.source_file + ": /topology/fixed_costs",
                       "applies to the roofline; this model's steps come from the measured profile " + p.file +
                           ", which holds its fixed costs (calibration " + sc.calibration.name +
                           "): use --calibration ideal, or a calibration without fixed costs");
  if (!p.prefill_for(sc.deployment.pe_group_gpus))
    throw InputError(p.file, "no prefill table for the scenario's prefill groups of " +
                                 std::to_string(sc.deployment.pe_group_gpus) + " GPUs (it has groups of " +
                                 p.prefill_groups() + ")");
  if (!p.decode_for(sc.deployment.de_group_gpus))
    throw InputError(p.file, "no decode table for the scenario's decode groups of " +
                                 std::to_string(sc.deployment.de_group_gpus) + " GPUs (it has groups of " +
                                 p.decode_groups() + ")");
}

void check_weights_fit(const Scenario& sc) {
  for (const auto& [side, group] : {std::pair<const char*, int>{"prefill", sc.deployment.pe_group_gpus},
                                    {"decode", sc.deployment.de_group_gpus}})
    if (const std::string why = weights_fit_problem(sc, side, group); !why.empty())
      throw InputError(sc.source_file, why);
}

}  // namespace dualpath
