#include "core/metrics/working_set.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace dualpath {

WorkingSet working_set(const RequestLog& requests, const std::vector<int>& trajectory_rounds,
                       double agents_per_s) {
  struct Life {
    double first = std::numeric_limits<double>::infinity(), last = -1;
    int done = 0;
    int last_round = -1;
    double final_tokens = 0;
  };
  std::map<int, Life> agents;
  // Per completed round: the context it holds from its arrival to the next round's arrival (or its own end).
  std::map<std::pair<int, int>, const Request*> rounds;
  double start = std::numeric_limits<double>::infinity(), end = 0;
  for (const Request& r : requests) {
    if (r.t.done < 0) continue;
    Life& a = agents[r.agent];
    a.first = std::min(a.first, r.t.arrival);
    a.last = std::max(a.last, r.t.done);
    ++a.done;
    if (r.round > a.last_round) a.last_round = r.round, a.final_tokens = static_cast<double>(r.prompt + r.gen);
    rounds[{r.agent, r.round}] = &r;
    start = std::min(start, r.t.arrival), end = std::max(end, r.t.done);
  }
  WorkingSet w;
  w.agents_per_s = agents_per_s;
  double life = 0, tokens = 0;
  for (const auto& [id, a] : agents) {
    // An agent counts when it completed its trajectory (an online run cut by its stop rule leaves some not).
    if (a.done != trajectory_rounds.at(static_cast<size_t>(id))) continue;
    ++w.agents;
    life += a.last - a.first, tokens += a.final_tokens;
  }
  if (w.agents > 0) w.mean_lifetime_s = life / w.agents, w.mean_final_tokens = tokens / w.agents;
  w.law_tokens = w.agents_per_s * w.mean_lifetime_s * w.mean_final_tokens / 2;
  double held = 0;  // token-seconds
  for (auto it = rounds.begin(); it != rounds.end(); ++it) {
    const Request& r = *it->second;
    const auto next = std::next(it);
    const bool same_agent = next != rounds.end() && next->first.first == r.agent;
    const double until = same_agent ? next->second->t.arrival : r.t.done;
    held += static_cast<double>(r.prompt) * std::max(0.0, until - r.t.arrival);
  }
  if (end > start) w.measured_mean_tokens = held / (end - start);
  return w;
}

}  // namespace dualpath
