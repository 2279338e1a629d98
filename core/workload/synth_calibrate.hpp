// Solves a synthetic profile's five levers against the five Table 2 columns of one reading (docs/workload.md §2),
// so the parameters stored in synth.cpp can be re-derived: `dualpath trace calibrate`.
#pragma once

#include <cstdint>

#include "core/workload/synth.hpp"
#include "core/workload/table2.hpp"

namespace dualpath {

struct CalibrationOptions {
  int seeds = 24;          // the target is the mean of the columns over seeds 1..seeds ...
  int trajectories = 500;  // ... of traces this long (the expected 500-trajectory value, no ratio bias)
  int max_iterations = 30;
  double tolerance = 0.002;  // stop when every column is within this relative error
};

struct CalibrationResult {
  SynthParams params;      // the best point found
  Table2Values values{};   // its columns, mean over the seeds
  double worst_error = 0;  // max over columns of |value / target - 1|
  int iterations = 0;      // Newton steps taken
};

// The reading's columns of `params`, averaged over the seeds.
Table2Values mean_columns(const SynthParams& params, Table2Reading reading, const CalibrationOptions& o);

// Damped Newton on log(levers) -> log(columns / targets), Jacobian by forward differences with common random
// numbers (the same seeds at every point), steps capped at 30% per lever. Levers: turns_median, append_median,
// append_traj_sigma, first_median, gen_median; every other shape parameter is kept from `start`.
CalibrationResult calibrate_synth(const SynthParams& start, Table2Reading reading, const Table2Row& target,
                                  const CalibrationOptions& o);

}  // namespace dualpath
