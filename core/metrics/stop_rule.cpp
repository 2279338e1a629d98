#include "core/metrics/stop_rule.hpp"

#include <cmath>

namespace dualpath {

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::None: return "none";
    case StopReason::SloViolated: return "slo_violated";
    case StopReason::SteadyState: return "steady_state";
  }
  return "none";
}

StopRule::StopRule(StopRuleSpec spec) : spec_(spec), next_sample_(spec.sample) {}

StopReason StopRule::observe(double now, double ttft) {
  window_.emplace_back(now, ttft);
  sum_ += ttft;
  while (!window_.empty() && window_.front().first <= now - spec_.window) {
    sum_ -= window_.front().second;
    window_.pop_front();
  }
  if (window_.empty()) sum_ = 0;  // no drift from the running sum once the window empties
  const double mean = window_mean();
  // Keep one window mean per sample period, as long as the lookback needs.
  while (next_sample_ <= now) {
    history_.emplace_back(next_sample_, mean);
    next_sample_ += spec_.sample;
  }
  while (history_.size() > 1 && history_[1].first <= now - spec_.lookback) history_.pop_front();

  if (now < spec_.window) return StopReason::None;
  if (mean > spec_.ttft_slo) return StopReason::SloViolated;
  if (now < spec_.lookback + spec_.window || history_.empty() || history_.front().first > now - spec_.lookback)
    return StopReason::None;
  lookback_mean_ = history_.front().second;
  if (lookback_mean_ > 0 && std::fabs(mean - lookback_mean_) < spec_.tolerance * lookback_mean_)
    return StopReason::SteadyState;
  return StopReason::None;
}

}  // namespace dualpath
