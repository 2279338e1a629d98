// Synthetic agent trajectories calibrated to Table 2 of the paper (32K / 48K / 64K MaxLen datasets).
// The model and the calibration are explained in docs/workload.md; the parameters live in synth.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/workload/table2.hpp"
#include "core/workload/trace.hpp"

namespace dualpath {

// Shape of one synthetic profile. Sigmas are of the natural log; medians/means are in tokens.
struct SynthParams {
  std::string name;
  Table2Reading reading = Table2Reading::Rounds;  // which reading of Table 2 the levers were solved against
  int64_t max_len = 0;            // truncation: a round whose prompt + generation exceeds this ends the trajectory
  double turns_median = 0;        // natural (untruncated) number of rounds: lognormal
  double turns_sigma = 0;
  double turns_append_corr = 0;   // correlation of log(natural turns) with -log(append scale): dump-heavy agents
                                  // (large tool outputs) finish in fewer rounds
  double append_median = 0;       // per-trajectory append scale: lognormal (heavy tail: a few dump-heavy agents)
  double append_traj_sigma = 0;
  double append_round_sigma = 0;  // per-round noise around the trajectory's scale (mean-preserving lognormal)
  double first_median = 0;        // round 0 append (system prompt + task statement): lognormal
  double first_sigma = 0;
  double gen_median = 0;          // per-trajectory generation scale: lognormal
  double gen_traj_sigma = 0;
  double gen_round_sigma = 0;     // per-round noise (mean-preserving lognormal)
};

// The names accepted by synth_profile(), in order.
const std::vector<std::string>& synth_profile_names();

// Parameters of a named profile ("32k" | "48k" | "64k") calibrated to one reading of Table 2.
// Throws InputError(where, ...) for other names.
SynthParams synth_profile(const std::string& name, Table2Reading reading, const std::string& where);

// n trajectories with ids "<profile>-<k>". Trajectory k depends only on (params, seed, k), so a smaller
// trace is a prefix of a larger one with the same seed. Arrival times are left unset.
Trace generate_trace(const SynthParams& params, int n, uint64_t seed);

// One trajectory (exposed for tests and calibration).
Trajectory generate_trajectory(const SynthParams& params, uint64_t seed, uint64_t index);

}  // namespace dualpath
