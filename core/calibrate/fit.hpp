// `dualpath calibrate`: the fixed costs of Topology::FixedCosts fitted to a cluster's measured serving points
// (core/calibrate/bench_results.hpp), on the scenario's model, hardware and group sizes (docs/calibration.md).
//
// - Decode: a point's TPOT is the roofline step at its batch per decode GPU (the measured concurrency over the
//   scenario's decode GPUs) and context (input + output / 2), plus decode_layer per layer and decode_request per
//   request per layer. Both enter the step linearly, so they are fitted by least squares, bounded at 0 (one point,
//   or points at one batch, fit the per-request part alone).
// - Prefill: the point at the lowest concurrency, where TTFT is one forward of its input (no cache hit: serving
//   benchmarks send fresh prompts), fits prefill_layer; the other points' TTFTs add queueing and are reported.
// - Storage: a serving benchmark reads no KV from storage, so the storage reading is the base calibration's.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/calibrate/bench_results.hpp"
#include "core/config/scenario.hpp"

namespace dualpath {

struct PointFit {
  BenchPoint point;
  double batch_per_gpu = 0, context = 0;
  double tpot_model = 0, ttft_model = 0;  // under the fitted costs
  bool fits_prefill = false;               // the point prefill_layer was fitted to
};

struct CalibrationFit {
  Topology::FixedCosts costs;
  bool decode_layer_fitted = false;  // false: one batch size only, the per-request part alone
  std::vector<PointFit> points;
};

// Throws InputError when the scenario times its model from a profile (measured steps hold their fixed costs).
CalibrationFit fit_calibration(const Scenario& sc, const std::vector<BenchPoint>& points);

// The calibration file of a fit: the fitted costs, the base calibration's storage reading (when it has one),
// every value's points and residuals, labelled as fitted to `files`.
nlohmann::json calibration_document(const Scenario& sc, const CalibrationFit& fit, const std::string& name,
                                    const std::vector<std::string>& files);

}  // namespace dualpath
