// The public measurements the cost model is held against (docs/cost-model.md, "Calibration"), each evaluated on
// the model at the measurement's shape: one table that `dualpath analyze cost --public` prints and that
// tests/core/cost_calibration_test.cpp checks, so the two can never disagree on a figure or a source.
#pragma once

#include <string>
#include <vector>

#include "core/config/scenario.hpp"

namespace dualpath {

struct PublicPoint {
  std::string id;        // stable key (JSON, tests)
  std::string figure;    // what was measured, at which shape
  std::string source;    // where it was published
  std::string unit;      // "tok/s/node", "us", "ms"
  double measured = 0;
  double model = 0;      // the roofline cost model at the same shape
  double profile = -1;   // the step profile at the same shape (< 0: no profile, or it has no table there)
  double tolerance = 0;  // |model / measured - 1| the calibration holds it to; 0 = a documented conflict, not held
  std::string note;      // why a point is not held, or what it assumes
  double ratio() const { return measured > 0 ? model / measured : 0; }
  bool held() const { return tolerance > 0; }
  bool within() const { return held() && ratio() >= 1 - tolerance && ratio() <= 1 + tolerance; }
};

// DeepSeek-V3/R1 as served in the Day-6 overview and by SGLang (Feb-May 2025), from the bundled V3.2 model: dense
// MLA (no DSA, no indexer), BF16 latent KV (576 x 2 B per token per layer), FlashMLA's dense BF16 decode at
// 660 TFLOPS on H800 (FlashMLA README) = 660/989 of the BF16 peak.
ModelSpec deepseek_v3_as_served(ModelSpec v32);

// True when `m` has DeepSeek-V3's expert layout (256 routed experts, top-8, 61 layers): the points apply to it.
bool is_deepseek_v3_family(const ModelSpec& m);

// Every point, evaluated on `v32` (the bundled DS 660B or an edit of it) and `t` (an 8-GPU Hopper node). With
// `profiled` (a copy of v32 whose timing is a profile) the points the profile covers get its figure too.
std::vector<PublicPoint> public_points(const ModelSpec& v32, const Topology& t, const ModelSpec* profiled = nullptr);

}  // namespace dualpath
