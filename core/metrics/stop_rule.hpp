// The paper's online stop rule (§7.6; digest "Evaluation"): an online run ends when TTFT exceeds the SLO, or at
// steady state, when the TTFT over a 150 s sliding window varies by less than 5% against the same window 30 min
// earlier. Reading taken here (the paper gives no formula): "TTFT" is the mean TTFT of the rounds whose first
// token fell in the last `window` seconds; the SLO check starts once one full window has passed (a single slow
// round at start-up does not end a run); steady state compares that mean with the mean of the window that ended
// `lookback` seconds earlier. Pure bookkeeping, fed by the engine at every first token.
#pragma once

#include <deque>
#include <string>
#include <utility>

namespace dualpath {

struct StopRuleSpec {
  double ttft_slo = 4.0;
  double window = 150;     // seconds
  double lookback = 1800;  // seconds (30 min)
  double tolerance = 0.05;
  double sample = 10;      // seconds between the window means kept for the lookback
};

enum class StopReason { None, SloViolated, SteadyState };
const char* stop_reason_name(StopReason r);  // "none", "slo_violated", "steady_state"

class StopRule {
 public:
  explicit StopRule(StopRuleSpec spec);

  // A round's first token at `now` after `ttft` seconds. Returns why the run should end now, or None.
  StopReason observe(double now, double ttft);

  // Mean TTFT of the rounds whose first token fell in (now - window, now] as of the last observe (0 if none).
  double window_mean() const { return window_.empty() ? 0.0 : sum_ / static_cast<double>(window_.size()); }
  // The window mean `lookback` earlier used by the last steady-state check (negative: none yet).
  double lookback_mean() const { return lookback_mean_; }
  const StopRuleSpec& spec() const { return spec_; }

 private:
  StopRuleSpec spec_;
  std::deque<std::pair<double, double>> window_;   // (time, ttft) in the window
  double sum_ = 0;
  std::deque<std::pair<double, double>> history_;  // (time, window mean), one per `sample` seconds
  double next_sample_ = 0;
  double lookback_mean_ = -1;
};

}  // namespace dualpath
