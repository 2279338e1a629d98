#include "core/workload/trace_stats.hpp"

#include <algorithm>

#include "core/config/input_error.hpp"

namespace dualpath {

TraceStats compute_stats(const Trace& trace, const std::string& where) {
  TraceStats s;
  if (trace.trajectories.empty()) throw InputError(where, "expected at least one trajectory, found none");
  // Sums in double: a large trace's token sums overflow nothing, and n^2 sums stay exact far beyond need.
  double sum_n = 0, sum_n2 = 0, sum_app = 0, sum_gen = 0, sum_total = 0, sum_ctx = 0;
  double sum_app_mean = 0, sum_gen_mean = 0, sum_ctx_mean = 0;
  for (const auto& t : trace.trajectories) {
    if (t.rounds.empty()) throw InputError(where, "trajectory '" + t.id + "' has no rounds");
    const double n = static_cast<double>(t.rounds.size());
    double app = 0, gen = 0, ctx = 0, reused = 0;
    for (const auto& r : t.rounds) {
      reused += ctx;  // the context this round's prompt reuses = everything before it
      app += static_cast<double>(r.append);
      gen += static_cast<double>(r.gen);
      ctx += static_cast<double>(r.append + r.gen);
    }
    sum_ctx += reused;
    sum_ctx_mean += reused / n;
    sum_n += n;
    sum_n2 += n * n;
    sum_app += app;
    sum_gen += gen;
    sum_total += ctx;
    sum_app_mean += app / n;
    sum_gen_mean += gen / n;
    s.max_total = std::max(s.max_total, static_cast<int64_t>(ctx));
  }
  const double nt = static_cast<double>(trace.trajectories.size());
  s.trajectories = static_cast<int64_t>(trace.trajectories.size());
  s.rounds = static_cast<int64_t>(sum_n);
  s.turns = sum_n2 / sum_n;
  s.append_per_turn = sum_app / sum_n;
  s.gen_per_turn = sum_gen / sum_n;
  s.total = sum_total / nt;
  s.context = sum_ctx / sum_n;
  s.kv_hit_rate = s.context / (s.context + s.append_per_turn);
  s.turns_per_trajectory = sum_n / nt;
  s.append_traj_mean = sum_app_mean / nt;
  s.gen_traj_mean = sum_gen_mean / nt;
  s.context_traj_mean = sum_ctx_mean / nt;
  return s;
}

}  // namespace dualpath
