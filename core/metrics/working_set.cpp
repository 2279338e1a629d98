#include "core/metrics/working_set.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dualpath {

void WorkingSetAccumulator::add(const Request& r) {
  if (r.t.done < 0) return;
  const auto id = static_cast<size_t>(r.agent);
  if (id >= agents_.size()) agents_.resize(id + 1);
  Life& a = agents_[id];
  if (a.done == 0) a.first = r.t.arrival;
  a.first = std::min(a.first, r.t.arrival);
  a.last = std::max(a.last, r.t.done);
  ++a.done;
  // An agent's rounds finish in round order, and so in id order (a round is issued when the one before is done).
  if (r.round < a.last_round)
    throw std::logic_error("working set: agent " + std::to_string(r.agent) + " finished round " +
                           std::to_string(r.round) + " after round " + std::to_string(a.last_round));
  if (r.round > a.last_round) {
    if (a.last_round >= 0) a.held += static_cast<double>(a.prompt) * std::max(0.0, r.t.arrival - a.arrival);
    a.last_round = r.round, a.final_tokens = static_cast<double>(r.prompt + r.gen);
  }
  a.prompt = r.prompt, a.arrival = r.t.arrival, a.end = r.t.done;  // the same round again: the later attempt
  start_ = any_ ? std::min(start_, r.t.arrival) : r.t.arrival;
  end_ = any_ ? std::max(end_, r.t.done) : std::max(0.0, r.t.done);
  any_ = true;
}

WorkingSet WorkingSetAccumulator::take(const std::vector<int>& trajectory_rounds, double agents_per_s) {
  WorkingSet w;
  w.agents_per_s = agents_per_s;
  double life = 0, tokens = 0, held = 0;  // held: token-seconds
  for (size_t id = 0; id < agents_.size(); ++id) {
    const Life& a = agents_[id];
    if (a.done == 0) continue;
    held += a.held + static_cast<double>(a.prompt) * std::max(0.0, a.end - a.arrival);
    // An agent counts when it completed its trajectory (an online run cut by its stop rule leaves some not).
    if (a.done != trajectory_rounds.at(id)) continue;
    ++w.agents;
    life += a.last - a.first, tokens += a.final_tokens;
  }
  if (w.agents > 0) w.mean_lifetime_s = life / w.agents, w.mean_final_tokens = tokens / w.agents;
  w.law_tokens = w.agents_per_s * w.mean_lifetime_s * w.mean_final_tokens / 2;
  if (any_ && end_ > start_) w.measured_mean_tokens = held / (end_ - start_);
  return w;
}

WorkingSet working_set(const RequestLog& requests, const std::vector<int>& trajectory_rounds, double agents_per_s) {
  WorkingSetAccumulator acc;
  for (const Request& r : requests) acc.add(r);
  return acc.take(trajectory_rounds, agents_per_s);
}

}  // namespace dualpath
