// Where the hardware backend's compute runs: real kernels on a CUDA GPU (hw/gpu/cuda_device.cpp, built when
// DUALPATH_WITH_CUDA is ON) or the emulated device, whose time is the cost model's prediction (the backend keeps
// its timer). Chosen at run time: a build with CUDA still falls back when no driver or device is usable, and
// name() says why, so every output can state what ran.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "hw/hw_choices.hpp"

namespace dualpath::hw {

class ComputeDevice {
 public:
  using Done = std::function<void(double measured_seconds, const std::string& error)>;  // called on a worker thread
  virtual ~ComputeDevice() = default;
  virtual std::string name() const = 0;  // e.g. "emulated (no CUDA device: cudaErrorNoDevice ...)" or "cuda: NVIDIA H200, cuBLAS"
  virtual bool real() const = 0;         // true when kernels run on a GPU
  // Runs all layers (and steps) of `work` as real kernels; calls done from a worker thread when the GPU finished.
  // Only called when real(); the emulated device's run() throws std::logic_error.
  virtual void run(const ComputeWork& work, Done done) = 0;
  // Copies `bytes` between the device's pinned host staging buffer and its device memory (H2D when to_device), on
  // a copy stream of its own, in staging-sized pieces; calls done from a worker thread with the measured seconds.
  // Only called when real().
  virtual void copy(bool to_device, uint64_t bytes, Done done) {
    (void)to_device, (void)bytes, (void)done;
    throw std::logic_error(name() + " has no copy engine");
  }
};

struct ComputeOptions {
  ComputeMode mode = ComputeMode::Auto;  // Auto: CUDA if a device is usable, else emulated; Cuda: error if none
  int device = 0;             // CUDA device ordinal (several emulated GPUs may share one device: one stream each)
};

// Throws std::runtime_error when mode is Cuda and no device is usable (message says why).
std::unique_ptr<ComputeDevice> make_compute_device(const ModelSpec& model, const ComputeOptions& options);

// Whether CUDA device `device` is usable: "" if so, else why not ("built without CUDA", or the CUDA error's name
// and text, e.g. "cudaErrorNoDevice: no CUDA-capable device is detected").
std::string cuda_unusable_reason(int device);

// CUDA devices the runtime sees (0 when none, no driver, or built without CUDA).
int cuda_device_count();

// "" when cuBLAS loads, else why not ("built without CUDA", or the loader's error). The CUDA device loads it on first
// use rather than at start-up (hw/gpu/cublas_library.hpp), so that commands without a GPU do not pay its ~210 MB.
std::string cublas_unusable_reason();

// True when this build has the CUDA device (DUALPATH_WITH_CUDA).
bool built_with_cuda();

}  // namespace dualpath::hw
