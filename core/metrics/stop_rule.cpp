#include "core/metrics/stop_rule.hpp"

#include <cmath>

#include "core/mutation/mutant.hpp"

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

StopReason StopRule::observe(double now, double ttft, double prompt_tokens, double agents_in_flight) {
  window_.emplace_back(now, ttft);
  if (spec_.load_flat) {  // slide the two halves of the look-back (times only grow)
    const double half = spec_.lookback / 2;
    recent_.push_back({now, prompt_tokens, agents_in_flight});
    recent_sum_ += prompt_tokens, recent_agents_ += agents_in_flight;
    while (recent_.front().t <= now - half) {
      const Served& f = recent_.front();
      earlier_.push_back(f);
      earlier_sum_ += f.tokens, recent_sum_ -= f.tokens;
      earlier_agents_ += f.agents, recent_agents_ -= f.agents;
      recent_.pop_front();
    }
    while (!earlier_.empty() && earlier_.front().t <= now - spec_.lookback) {
      earlier_sum_ -= earlier_.front().tokens, earlier_agents_ -= earlier_.front().agents;
      earlier_.pop_front();
    }
    // No drift from the running sums once a half empties.
    if (earlier_.empty()) earlier_sum_ = 0, earlier_agents_ = 0;
    if (recent_.empty()) recent_sum_ = 0, recent_agents_ = 0;
  }
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
  if (spec_.load_flat && now > spec_.arrivals_end) return StopReason::None;  // a drain (StopRuleSpec)
  lookback_mean_ = history_.front().second;
  const double half = spec_.lookback / 2;
  if (spec_.load_flat) {
    load_recent_ = recent_sum_ / half, load_earlier_ = earlier_sum_ / half;
    agents_recent_ = recent_.empty() ? 0 : recent_agents_ / static_cast<double>(recent_.size());
    agents_earlier_ = earlier_.empty() ? 0 : earlier_agents_ / static_cast<double>(earlier_.size());
  }
  if (!(lookback_mean_ > 0 && std::fabs(mean - lookback_mean_) < spec_.tolerance * lookback_mean_))
    return StopReason::None;
  if (!spec_.load_flat || mutant("steady_ignores_load")) return StopReason::SteadyState;
  // The load: prompt tokens served in (now - lookback/2, now] against (now - lookback, now - lookback/2], and the
  // mean agents in flight over the same halves (an overload's backlog).
  const bool load_flat = recent_sum_ <= (1 + spec_.tolerance) * earlier_sum_;
  const bool backlog_flat = agents_recent_ <= (1 + spec_.tolerance) * agents_earlier_;
  return load_flat && backlog_flat ? StopReason::SteadyState : StopReason::None;
}

}  // namespace dualpath
