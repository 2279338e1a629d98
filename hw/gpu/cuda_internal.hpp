// Entry points of hw/gpu/cuda_device.cpp for the rest of hw/gpu, declared without CUDA types so that callers
// stay plain C++. Defined only when DUALPATH_HAVE_CUDA is set; callers check that define.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hw/gpu/compute_device.hpp"
#include "hw/gpu/layer_shapes.hpp"

namespace dualpath::hw::cuda {

// "" when `device` can be selected and a stream created, else the CUDA error's name and text.
std::string probe(int device);
// "" when cuBLAS loads (hw/gpu/cublas_library.hpp: on first use, not at start-up), else why not.
std::string cublas_problem();
// Devices the runtime sees (0 when none or no driver).
int device_count();
// Throws std::runtime_error naming the CUDA/cuBLAS call that failed.
std::unique_ptr<ComputeDevice> make_device(const ModelSpec& model, int device);

// Median over `repeats` of the GPU time of running `gemms` once (after one warm-up run), seconds.
double time_gemms(int device, const std::vector<Gemm>& gemms, int repeats);

// Pinned host <-> device copy bandwidth, bytes/s: median over `repeats` copies of `bytes`.
struct CopyRates {
  double h2d = 0, d2h = 0;
  std::string device_name;
};
CopyRates copy_rates(int device, size_t bytes, int repeats);

}  // namespace dualpath::hw::cuda
