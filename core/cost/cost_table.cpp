#include "core/cost/cost_table.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dualpath {

DecodePoint decode_point(const CostModel& cost, const GroupShape& group, double batch, double context) {
  const ModelSpec& m = cost.model();
  DecodePoint p;
  p.batch = batch;
  p.context = context;
  const double capped = m.sparse_topk > 0 ? std::min(context, static_cast<double>(m.sparse_topk)) : context;
  // Every GPU of the group alike: `batch` requests of `context` tokens each.
  const DecodeEngineLoad e{batch, batch * context, batch * capped, static_cast<int64_t>(std::max(1.0, batch))};
  const DecodeStep step = cost.decode_step(std::vector<DecodeEngineLoad>(static_cast<size_t>(group.gpus), e), group.nodes);
  p.layer = step.layer;
  p.step = step.token_seconds;  // per generated token: MTP's steps yield more than one
  if (p.step > 0) {
    p.tokens_per_user = 1 / p.step;
    p.tokens_per_node = group.gpus_per_node * batch / p.step;
  }
  return p;
}

PrefillPoint prefill_point(const CostModel& cost, const GroupShape& group, double cnic_bw, double tokens,
                           int64_t cached, int64_t fresh) {
  const ModelSpec& m = cost.model();
  PrefillPoint p;
  p.tokens = tokens;
  p.cached = cached;
  p.fresh = fresh;
  if (fresh <= 0 || tokens <= 0) return p;
  const double requests = tokens / static_cast<double>(fresh);
  p.attention = requests * cost.prefill_attention(cached, fresh, group.gpus);
  p.linear = cost.prefill_linear(tokens, group.gpus);
  const double rdma = m.prefill_ep_rdma_bytes_per_token_layer(group.nodes);
  p.ep = cnic_bw > 0 ? tokens * rdma / cnic_bw : 0;
  p.layer = std::max(p.attention + p.linear, p.ep);
  p.forward = m.n_layers * p.layer;
  if (p.forward > 0) {
    p.fresh_per_node = group.gpus_per_node * tokens / p.forward;
    p.input_per_node = p.fresh_per_node * static_cast<double>(cached + fresh) / static_cast<double>(fresh);
  }
  return p;
}

double node_tokens_at_user_speed(const CostModel& cost, const GroupShape& g, double context, double per_user) {
  double lo = 1, hi = 4096;
  if (decode_point(cost, g, hi, context).tokens_per_user > per_user) return NAN;
  for (int i = 0; i < 60; ++i) {  // bisection on the batch
    const double mid = 0.5 * (lo + hi);
    (decode_point(cost, g, mid, context).tokens_per_user > per_user ? lo : hi) = mid;
  }
  return decode_point(cost, g, lo, context).tokens_per_node;
}

}  // namespace dualpath
