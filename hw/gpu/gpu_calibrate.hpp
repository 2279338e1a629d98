// GPU calibration: pinned H2D/D2H bandwidth and per-layer kernel times (hw/gpu/layer_shapes on cuBLAS) over a
// grid of batch shapes, each compared with the cost model, and the cost-model efficiencies fitted to them as
// overrides in `--set` / overlay syntax. Without CUDA (or without a usable device) it reports why and measures
// nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"

namespace dualpath::hw {

struct GpuCalibrateOptions {
  int device = 0;
  size_t copy_bytes = size_t{256} << 20;
  int copy_repeats = 5;
  int kernel_repeats = 5;
  int group_gpus = 1;  // engines sharing the weights (EP), for the cost model's weight-read bound
  std::vector<int64_t> prefill_tokens = {256, 1024, 4096};
  std::vector<int64_t> prefill_cached = {0, 8192, 32768};
  std::vector<int64_t> decode_batch = {8, 64, 256};
  std::vector<int64_t> decode_context = {8192, 32768};
};

// One grid point: one layer (one decode step) measured and predicted, linear and attention separately.
struct KernelPoint {
  std::string phase;  // "prefill": `tokens` fresh tokens after `cached`; "decode": `tokens` requests of `cached` context
  int64_t tokens = 0, cached = 0;
  double linear_flops = 0, attention_flops = 0;          // of the kernels run
  double measured_linear = 0, measured_attention = 0;    // seconds
  double predicted_linear = 0, predicted_attention = 0;  // cost model, seconds
  bool linear_compute_bound = false, attention_compute_bound = false;  // in the cost model's roofline
};

// The grid's points with their FLOPs, predictions and roofline sides filled in (measured times left 0).
std::vector<KernelPoint> calibration_grid(const ModelSpec& model, const GpuSpec& gpu, const GpuCalibrateOptions& o);

// Efficiencies that make the cost model's compute terms match the measured times: FLOPs over peak x time,
// summed over the points the cost model puts on the compute side of its roofline (all prefill points if none),
// clamped to (0, 1]. Returns the "set" map: model.linear_efficiency, model.attention_efficiency and, when
// h2d_bytes_per_s > 0, topology.pcie_bw.
nlohmann::json fit_overrides(const std::vector<KernelPoint>& points, double peak_flops, double h2d_bytes_per_s);

// {"available": true, "device", "copy": {...}, "grid": [...], "overrides": {...}} or
// {"available": false, "reason": "..."}.
nlohmann::json calibrate_gpu(const ModelSpec& model, const GpuSpec& gpu, const GpuCalibrateOptions& options = {});

// A step profile (core/config/step_profile_file.hpp) measured on this GPU with the CUDA body's kernels over the coarse
// grid (core/cost/profile_writer.hpp): per layer, the attention and linear kernels of layer_shapes at each shape; a
// decode step is n_layers x (attention + linear) plus the decode all-to-all of the cost model for `de_group` GPUs
// over `topology` (one GPU cannot measure the network), over the tokens a step yields. {"available": false,
// "reason"} without a usable device; otherwise {"available": true, "device", "profile": {...}}.
nlohmann::json measure_step_profile(const ModelSpec& model, const Topology& topology, int pe_group, int de_group,
                                    const GpuCalibrateOptions& options = {});

// The overlay file (core/config/overlay.hpp) of a successful calibration: {"overlay": 1, "description",
// "measured", "set": overrides}.
nlohmann::json gpu_overlay(const nlohmann::json& calibration, const std::string& description);

}  // namespace dualpath::hw
