// The statistics of Table 2 of the paper (and a few counts), computed for any trace.
// Table 2's columns use different weightings (Turns x (Append+Gen) > Total), so each one is defined
// precisely here; docs/workload.md explains why these definitions make all five columns jointly reachable.
#pragma once

#include <cstdint>
#include <string>

#include "core/workload/trace.hpp"

namespace dualpath {

struct TraceStats {
  int64_t trajectories = 0;
  int64_t rounds = 0;
  // Table 2 columns. Every per-turn column is a mean over all rounds (request-weighted), as a request-level
  // log would give it; only Total is a mean over trajectories.
  double turns = 0;           // mean over rounds of the round count of the round's trajectory: sum(n^2)/sum(n)
  double append_per_turn = 0; // mean over rounds of the appended tokens
  double gen_per_turn = 0;    // mean over rounds of the generated tokens
  double total = 0;           // mean over trajectories of the final length (all appends + generations)
  double context = 0;         // mean over rounds of the context the round's prompt reuses (tokens before it)
  double kv_hit_rate = 0;     // context / (context + append_per_turn) = reused / prompt tokens over all rounds
  // Trajectory-weighted views of the same data, for comparison.
  double turns_per_trajectory = 0;  // plain mean of the round counts
  double append_traj_mean = 0;      // mean over trajectories of the trajectory's mean append per round
  double gen_traj_mean = 0;         // mean over trajectories of the trajectory's mean generation per round
  double context_traj_mean = 0;     // mean over trajectories of the trajectory's mean reused context per round
  int64_t max_total = 0;            // longest trajectory (tokens)
};

// Throws InputError(where, ...) for an empty trace or a trajectory with no rounds.
TraceStats compute_stats(const Trace& trace, const std::string& where);

}  // namespace dualpath
