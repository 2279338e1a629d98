// Intra-engine PE batching under the compute quota (§6.2): take ready requests in FIFO order while the
// predicted attention time stays within the quota; the request that would overflow it is chunked to the
// largest fresh-token count that still fits (binary search), and the batch ends there.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace dualpath {

struct BatchCandidate {
  int64_t cached = 0;      // tokens whose KV is already available (hit + earlier chunks)
  int64_t fresh = 0;       // tokens still to prefill
  double hbm_bytes = 0;    // HBM the request's KV takes while it is in the batch (0 if unconstrained)
};

struct BatchItem {
  size_t index;            // position in the candidate list
  int64_t fresh;           // tokens prefilled in this batch (< candidate's fresh when chunked)
};

struct BatchLimits {
  double quota = 0.3;                // seconds of predicted attention time
  double hbm_budget = 0;             // bytes of HBM for the batch's KV; <= 0 = unconstrained (layerwise)
};

// predict(cached, fresh) -> predicted attention seconds of one request within the quota's scope.
std::vector<BatchItem> form_batch(const std::vector<BatchCandidate>& ready, const BatchLimits& limits,
                                  const std::function<double(int64_t, int64_t)>& predict);

}  // namespace dualpath
