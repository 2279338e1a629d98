#include "core/sched/quota_batcher.hpp"

namespace dualpath {

std::vector<BatchItem> form_batch(const std::vector<BatchCandidate>& ready, const BatchLimits& limits,
                                  const std::function<double(int64_t, int64_t)>& predict) {
  std::vector<BatchItem> batch;
  double t = 0, hbm = 0;
  for (size_t i = 0; i < ready.size(); ++i) {
    const auto& r = ready[i];
    if (limits.hbm_budget > 0 && hbm + r.hbm_bytes > limits.hbm_budget) break;  // whole KV must be resident
    const double dt = predict(r.cached, r.fresh);
    if (t + dt <= limits.quota) {
      batch.push_back({i, r.fresh});
      t += dt;
      hbm += r.hbm_bytes;
      continue;
    }
    // Largest b in [1, fresh) with t + predict(cached, b) <= quota (predict is monotone in b).
    int64_t lo = 0, hi = r.fresh - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (t + predict(r.cached, mid) <= limits.quota) lo = mid; else hi = mid - 1;
    }
    if (lo > 0) batch.push_back({i, lo});
    break;
  }
  // A single request whose attention alone exceeds the quota must still make progress.
  if (batch.empty() && !ready.empty() &&
      (limits.hbm_budget <= 0 || ready.front().hbm_bytes <= limits.hbm_budget))
    batch.push_back({0, ready.front().fresh > 0 ? int64_t{1} : int64_t{0}});
  return batch;
}

}  // namespace dualpath
