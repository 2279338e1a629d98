// Step profiles written out (core/config/step_profile_file.hpp): one writer for every source of times. The
// roofline's own step times (`dualpath analyze cost --write-profile`, the profile-equals-roofline test, the start
// of a profile a user edits) and measured ones (`dualpath hw calibrate --profile`, hw/gpu/gpu_calibrate.cpp) go
// through it, so the layout is defined once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cost/cost_model.hpp"

namespace dualpath {

// The grid a profile is written on.
struct ProfileAxes {
  std::vector<double> cached, fresh;  // prefill attention: one request's cached and fresh tokens
  std::vector<double> tokens;         // prefill linear work: fresh tokens per GPU
  std::vector<double> batch, context;  // decode: requests per GPU, context tokens per request
  // Fine enough that interpolating the roofline reproduces its runs (docs: within 1% of JCT), and covering the
  // shapes the bundled workloads reach.
  static ProfileAxes fine();
  // A few points per axis: what a measurement on a real GPU can afford.
  static ProfileAxes coarse();
};

// Where the times come from, per group size `g`.
struct ProfileTimes {
  std::function<double(int64_t cached, int64_t fresh, int g)> prefill_attention;  // seconds per layer, one request
  std::function<double(double tokens, int g)> prefill_linear;                     // seconds per layer
  std::function<double(double batch, double context, int g)> decode_token;        // seconds per generated token
};

nlohmann::json write_step_profile(const std::string& name, const std::string& label, const std::string& description,
                                  const std::vector<int>& pe_groups, const std::vector<int>& de_groups,
                                  const ProfileAxes& axes, const ProfileTimes& times);

// The roofline's step times: one prefill table per size in `pe_groups`, one decode table per size in `de_groups`;
// decode times multiplied by `decode_scale` (1 = the roofline's own).
nlohmann::json roofline_profile(const CostModel& cost, const Topology& topology, const std::vector<int>& pe_groups,
                                const std::vector<int>& de_groups, const std::string& label, double decode_scale = 1);

}  // namespace dualpath
