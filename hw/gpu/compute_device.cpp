#include "hw/gpu/compute_device.hpp"

#include <stdexcept>

#ifdef DUALPATH_HAVE_CUDA
#include "hw/gpu/cuda_internal.hpp"
#endif

namespace dualpath::hw {

namespace {

// Compute time stays the cost model's prediction (the backend's timer); this only names why.
class EmulatedDevice final : public ComputeDevice {
 public:
  explicit EmulatedDevice(std::string reason) : reason_(std::move(reason)) {}
  std::string name() const override { return "emulated (" + reason_ + ")"; }
  bool real() const override { return false; }
  void run(const ComputeWork&, Done) override {
    throw std::logic_error("the emulated compute device runs no kernels; the backend times its work itself");
  }

 private:
  std::string reason_;
};

}  // namespace

bool built_with_cuda() {
#ifdef DUALPATH_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::string cublas_unusable_reason() {
#ifdef DUALPATH_HAVE_CUDA
  return cuda::cublas_problem();
#else
  return "built without CUDA";
#endif
}

int cuda_device_count() {
#ifdef DUALPATH_HAVE_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

std::string cuda_unusable_reason(int device) {
#ifdef DUALPATH_HAVE_CUDA
  return cuda::probe(device);
#else
  (void)device;
  return "built without CUDA";
#endif
}

std::unique_ptr<ComputeDevice> make_compute_device(const ModelSpec& model, const ComputeOptions& options) {
  if (options.mode == ComputeMode::Emulated) return std::make_unique<EmulatedDevice>("requested");
  const std::string why = cuda_unusable_reason(options.device);
  if (!why.empty()) {
    const std::string reason =
        why == "built without CUDA" ? why : "no CUDA device " + std::to_string(options.device) + ": " + why;
    if (options.mode == ComputeMode::Cuda) throw std::runtime_error("--compute cuda: no usable CUDA device (" + reason + ")");
    return std::make_unique<EmulatedDevice>(reason);
  }
#ifdef DUALPATH_HAVE_CUDA
  return cuda::make_device(model, options.device);
#else
  (void)model;
  throw std::logic_error("unreachable: CUDA reported usable in a build without CUDA");
#endif
}

}  // namespace dualpath::hw
