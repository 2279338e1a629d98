// The paper's online stop rule (§7.6; digest "Evaluation"): an online run ends when TTFT exceeds the SLO, or at
// steady state, when the TTFT over a 150 s sliding window varies by less than 5% against the same window 30 min
// earlier. Reading taken here (the paper gives no formula): "TTFT" is the mean TTFT of the rounds whose first
// token fell in the last `window` seconds; the SLO check starts once one full window has passed (a single slow
// round at start-up does not end a run); steady state compares that mean with the mean of the window that ended
// `lookback` seconds earlier. Pure bookkeeping, fed by the Cluster at every first token.
//
// Steady state of the load as well (StopRuleSpec::load_flat, the default; issue 62): an agent's reads grow with its
// context, so the load an arrival rate offers keeps rising until the live agents' ages are stationary, which takes
// about the longest trajectory lifetime (1,500-2,000 s at DS 660B 2P4D), and a TTFT that is flat while the load
// still rises says nothing about the rate. So steady state also needs the prompt tokens served (hit + fresh: the
// SNIC and PE load) in the last half of the look-back to be no more than (1 + tolerance) x those of the half before
// it. One-sided on purpose: a load that falls (agents finishing) or wobbles down is not a transient that hides an
// overload, and a two-sided test would leave low rates, whose few agents make the load noisy, without a steady state.
// The served load alone misses an overload: past capacity it is flat at what the bottleneck serves while agents
// queue. Agents are closed loops, so an overload shows as agents in flight that keep growing: steady state also
// needs the mean number of agents in flight over the last half of the look-back to be no more than (1 + tolerance)
// x that of the half before.
#pragma once

#include <deque>
#include <limits>
#include <string>
#include <utility>

namespace dualpath {

struct StopRuleSpec {
  double ttft_slo = 4.0;
  double window = 150;     // seconds
  double lookback = 1800;  // seconds (30 min)
  double tolerance = 0.05;
  double sample = 10;      // seconds between the window means kept for the lookback
  bool load_flat = true;   // steady state also needs the load (tokens served, agents in flight) flat (above)
  // With load_flat: when new agents stop arriving (workload.duration; infinity = never). After it the load falls as
  // agents finish, which is a drain, not a steady state: the rule then only judges the SLO.
  double arrivals_end = std::numeric_limits<double>::infinity();
};

enum class StopReason { None, SloViolated, SteadyState };
const char* stop_reason_name(StopReason r);  // "none", "slo_violated", "steady_state"

class StopRule {
 public:
  explicit StopRule(StopRuleSpec spec);

  // A round's first token at `now` after `ttft` seconds, its prompt `prompt_tokens` long (hit + fresh), with
  // `agents_in_flight` agents started and not finished. Returns why the run should end now, or None.
  StopReason observe(double now, double ttft, double prompt_tokens = 0, double agents_in_flight = 0);

  // Mean TTFT of the rounds whose first token fell in (now - window, now] as of the last observe (0 if none).
  double window_mean() const { return window_.empty() ? 0.0 : sum_ / static_cast<double>(window_.size()); }
  // The window mean `lookback` earlier used by the last steady-state check (negative: none yet).
  double lookback_mean() const { return lookback_mean_; }
  // Prompt tokens served per second over the last half of the look-back and the half before it, as of the last
  // steady-state check (negative: none yet).
  double load_recent() const { return load_recent_; }
  double load_earlier() const { return load_earlier_; }
  // Mean agents in flight (sampled at first tokens) over the same two halves, as of the last check (negative: none).
  double agents_recent() const { return agents_recent_; }
  double agents_earlier() const { return agents_earlier_; }
  const StopRuleSpec& spec() const { return spec_; }

 private:
  StopRuleSpec spec_;
  std::deque<std::pair<double, double>> window_;   // (time, ttft) in the window
  double sum_ = 0;
  std::deque<std::pair<double, double>> history_;  // (time, window mean), one per `sample` seconds
  double next_sample_ = 0;
  double lookback_mean_ = -1;
  // What a first token served in the last half of the look-back and in the half before it, with their sums.
  struct Served {
    double t = 0, tokens = 0, agents = 0;
  };
  std::deque<Served> recent_, earlier_;
  double recent_sum_ = 0, earlier_sum_ = 0;                  // prompt tokens
  double recent_agents_ = 0, earlier_agents_ = 0;            // agents in flight, summed over the samples
  double load_recent_ = -1, load_earlier_ = -1, agents_recent_ = -1, agents_earlier_ = -1;
};

}  // namespace dualpath
