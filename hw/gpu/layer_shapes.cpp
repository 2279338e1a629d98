#include "hw/gpu/layer_shapes.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/cost/cost_model.hpp"

namespace dualpath::hw {

namespace {

int64_t round_pos(double x) { return std::max<int64_t>(1, std::llround(x)); }

// (query, key) pairs one layer of attention computes for (cached, fresh), by the cost model's own definition:
// its attention FLOPs with 1 FLOP per pair and no indexer. `capped` applies the DSA top-k, as the main
// attention does; the indexer scores every earlier key.
double pairs(const ModelSpec& model, const SeqShape& s, bool capped) {
  ModelSpec unit = model;
  unit.attn_flops_per_query_key = 1;
  unit.indexer_flops_per_query_key = 0;
  if (!capped) unit.sparse_topk = 0;
  return CostModel(unit, GpuSpec{}).attention_layer_flops(s.cached, s.fresh);
}

}  // namespace

KernelDims kernel_dims(const ModelSpec& model) {
  KernelDims d;
  // A dense transformer layer holds about 12 h^2 parameters (4 h^2 attention, 8 h^2 FFN of width 4h): the
  // width a model of this size per layer would have, rounded to the 128 GEMM kernels like.
  d.hidden = model.hidden_size > 0
                 ? model.hidden_size
                 : std::max<int64_t>(128, std::llround(std::sqrt(model.active_params / model.n_layers / 12) / 128) * 128);
  const double per_pair = model.attn_flops_per_query_key;
  if (model.attn_heads > 0 && model.head_dim > 0 && model.v_head_dim > 0) {
    d.heads = model.attn_heads, d.qk_dim = model.head_dim, d.v_dim = model.v_head_dim;
  } else if (model.attn_heads > 0) {
    // Heads known, dims not: equal Q.K and value dims that give the FLOPs.
    d.heads = model.attn_heads;
    d.qk_dim = d.v_dim = round_pos(per_pair / (4.0 * d.heads));
  } else {
    // The common head dim 128 (Llama, Qwen, Mistral), heads chosen to give the FLOPs.
    d.qk_dim = model.head_dim > 0 ? model.head_dim : 128;
    d.v_dim = model.v_head_dim > 0 ? model.v_head_dim : d.qk_dim;
    d.heads = round_pos(per_pair / (2.0 * static_cast<double>(d.qk_dim + d.v_dim)));
  }
  d.kv_heads = model.kv_heads > 0 && d.heads % model.kv_heads == 0 ? model.kv_heads : d.heads;
  if (model.indexer_flops_per_query_key > 0) {
    // The DSA indexer: heads x dim x 2 FLOP per pair against one shared key per token (V3.2: 64 heads x 128).
    // Only the product matters for FLOPs; dim 128 when it divides, as in V3.2.
    const int64_t prod = round_pos(model.indexer_flops_per_query_key / 2);
    d.indexer_dim = prod % 128 == 0 ? 128 : prod % 64 == 0 ? 64 : prod;
    d.indexer_heads = prod / d.indexer_dim;
  }
  return d;
}

double LayerShapes::linear_flops() const {
  double f = 0;
  for (const auto& g : linear) f += g.flops();
  return f;
}

double LayerShapes::attention_flops() const {
  double f = 0;
  for (const auto& g : attention) f += g.flops();
  return f;
}

LayerShapes layer_shapes(const ModelSpec& model, const ComputeWork& work) {
  LayerShapes out;
  const KernelDims d = kernel_dims(model);

  // Linear: P parameters per layer; a share like the attention projections (at most 4 h^2, at most a third),
  // the rest a gated FFN (up+gate h x 2F, down F x h). 2 x M x (2ah + 3hF) = 2 x M x P up to rounding.
  if (work.linear_tokens > 0) {
    const int64_t m = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(work.linear_tokens - 1e-9)));
    const double p = model.active_params / model.n_layers;
    const double h = static_cast<double>(d.hidden);
    const double attn_params = std::min(4 * h * h, p / 3);
    const int64_t a = round_pos(attn_params / (2 * h));
    const int64_t f = round_pos((p - 2.0 * static_cast<double>(a) * h) / (3 * h));
    out.linear.push_back(Gemm{"qkv", 1, m, a, d.hidden});
    out.linear.push_back(Gemm{"o", 1, m, d.hidden, a});
    out.linear.push_back(Gemm{"ffn_up", 1, m, 2 * f, d.hidden});
    out.linear.push_back(Gemm{"ffn_down", 1, m, d.hidden, f});
  }

  // Attention: sequences grouped by the power of two of their query count (a few launches per layer however
  // many sequences); per group one batched GEMM with the mean query count and the mean keys per query, so the
  // group's FLOPs are the sum of its sequences'.
  struct Group {
    int64_t n = 0;
    double fresh = 0, capped = 0, full = 0;
  };
  std::map<int, Group> groups;
  for (const auto& s : work.seqs) {
    if (s.fresh <= 0) continue;
    Group& g = groups[static_cast<int>(std::floor(std::log2(static_cast<double>(s.fresh))))];
    g.n += 1;
    g.fresh += static_cast<double>(s.fresh);
    g.capped += pairs(model, s, true);
    if (d.indexer_heads > 0) g.full += pairs(model, s, false);
  }
  const int64_t q_per_kv = d.heads / d.kv_heads;
  for (const auto& [bucket, g] : groups) {
    const int64_t m = round_pos(g.fresh / static_cast<double>(g.n));
    const double queries = static_cast<double>(g.n * m);
    const int64_t keys = round_pos(g.capped / queries);
    // The heads sharing one K/V form the rows of one GEMM (as FlashMLA and GQA kernels do).
    out.attention.push_back(Gemm{"qk", g.n * d.kv_heads, m * q_per_kv, keys, d.qk_dim});
    out.attention.push_back(Gemm{"pv", g.n * d.kv_heads, m * q_per_kv, d.v_dim, keys});
    if (d.indexer_heads > 0)
      out.attention.push_back(Gemm{"indexer", g.n, m * d.indexer_heads, round_pos(g.full / queries), d.indexer_dim});
  }
  return out;
}

std::vector<GemmPiece> split_to_fit(const Gemm& g, double max_elems) {
  std::vector<GemmPiece> out;
  auto add = [&](int64_t batch, int64_t m, int64_t n, int64_t repeat) {
    if (batch <= 0 || m <= 0 || n <= 0 || repeat <= 0) return;
    Gemm p = g;
    p.batch = batch, p.m = m, p.n = n;
    out.push_back(GemmPiece{p, repeat});
  };
  const double item = std::max({static_cast<double>(g.m) * g.k, static_cast<double>(g.k) * g.n,
                                static_cast<double>(g.m) * g.n});
  if (item * static_cast<double>(g.batch) <= max_elems) {
    add(g.batch, g.m, g.n, 1);
    return out;
  }
  if (item <= max_elems) {  // whole items, fewer per launch
    const int64_t per = std::max<int64_t>(1, static_cast<int64_t>(max_elems / item));
    add(per, g.m, g.n, g.batch / per);
    add(g.batch % per, g.m, g.n, 1);
    return out;
  }
  // One item is too large: tiles of m' x n' with m' x k, k x n' and m' x n' within the limit (k is not split).
  const double k = static_cast<double>(g.k);
  const int64_t mt = std::clamp<int64_t>(static_cast<int64_t>(max_elems / std::max<double>(k, static_cast<double>(g.n))), 1, g.m);
  const int64_t nt = static_cast<double>(g.k) * g.n <= max_elems && static_cast<double>(mt) * g.n <= max_elems
                         ? g.n
                         : std::clamp<int64_t>(static_cast<int64_t>(max_elems / std::max<double>(k, static_cast<double>(mt))), 1, g.n);
  const int64_t qm = g.m / mt, rm = g.m % mt, qn = g.n / nt, rn = g.n % nt;
  add(1, mt, nt, qm * qn * g.batch);
  add(1, rm, nt, qn * g.batch);
  add(1, mt, rn, qm * g.batch);
  add(1, rm, rn, g.batch);
  return out;
}

}  // namespace dualpath::hw
