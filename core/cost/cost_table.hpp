// Steady-state throughput points of the cost model: one decode step of a full group at a given batch and context,
// one prefill forward at a given token batch and request shape. What `dualpath analyze cost` prints and what the
// calibration test (tests/core/cost_calibration_test.cpp) holds against DeepSeek's published figures.
#pragma once

#include <cstdint>

#include "core/cost/cost_model.hpp"

namespace dualpath {

// An engine group: GPUs and the nodes they span.
struct GroupShape {
  int gpus = 1;
  int nodes = 1;
  int gpus_per_node = 8;
  static GroupShape of(int gpus, int gpus_per_node) {
    const int per = gpus_per_node > 0 ? gpus_per_node : 1;
    return {gpus, (gpus + per - 1) / per, per};
  }
};

struct DecodePoint {
  double batch = 0;    // requests per GPU, every GPU alike
  double context = 0;  // tokens each request attends over (before DSA's top-k)
  DecodeLayerParts layer;
  double step = 0;                  // seconds per generated token (a decode step's time over the tokens it yields)
  double tokens_per_user = 0;       // output tokens/s of one request
  double tokens_per_node = 0;       // output tokens/s of one node
};

struct PrefillPoint {
  double tokens = 0;  // fresh tokens per GPU per forward
  int64_t cached = 0, fresh = 0;  // one request: cached prefix, tokens computed
  double attention = 0, linear = 0, ep = 0;  // seconds per layer; ep = the all-to-all at the CNIC rate
  double layer = 0;                          // max(compute, ep): two micro-batches overlap them
  double forward = 0;                        // seconds per forward
  double fresh_per_node = 0;                 // computed tokens/s of one node
  double input_per_node = 0;                 // prompt tokens/s (cached + fresh) of one node
  bool ep_bound() const { return ep > attention + linear; }
};

DecodePoint decode_point(const CostModel& cost, const GroupShape& group, double batch, double context);
PrefillPoint prefill_point(const CostModel& cost, const GroupShape& group, double cnic_bw, double tokens,
                           int64_t cached, int64_t fresh);
// Output tokens/s per node at the batch (1..4096 per GPU) where one user sees `per_user` tokens/s; NaN when even
// 4096 requests per GPU leave a user faster than that. How Day 6's "14.8k per node at 20-22 per user" is read.
double node_tokens_at_user_speed(const CostModel& cost, const GroupShape& group, double context, double per_user);

}  // namespace dualpath
