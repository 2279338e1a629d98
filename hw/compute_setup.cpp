#include "hw/compute_setup.hpp"

#include <stdexcept>

#include "hw/gpu/compute_device.hpp"

namespace dualpath::hw {

ComputeSetup make_compute_setup(const Scenario& sc, const HwOptions& opt, int first_gpu, int gpus) {
  ComputeSetup s;
  const std::string emulated = "emulated: each compute() waits the cost model's predicted seconds; no GPU kernel runs";
  if (opt.compute == ComputeMode::Emulated) {
    s.description = emulated;
    return s;
  }
  // One device object (one stream) per emulated GPU; several may share one physical GPU (e.g. PE and DE of a 1P1D
  // on one card), each taking device ordinal (gpu index) modulo the devices present.
  const int present = cuda_device_count();
  for (int g = 0; g < gpus; ++g) {
    ComputeOptions co;
    co.mode = opt.compute;
    co.device = present > 0 ? (first_gpu + g) % present : first_gpu + g;
    std::shared_ptr<ComputeDevice> d = make_compute_device(sc.model, co);
    if (!d->real()) {
      s.devices.clear();
      s.description = emulated + " (" + d->name() + ")";
      return s;
    }
    s.devices.push_back(std::move(d));
  }
  s.real = true;
  s.description = "measured: real kernels on " + s.devices.front()->name();
  auto devices = s.devices;
  s.kernels = [devices, first_gpu](int gpu, const ComputeWork& work,
                                   std::function<void(double, const std::string&)> done) {
    devices.at(static_cast<size_t>(gpu - first_gpu))->run(work, std::move(done));
  };
  s.copies = [devices, first_gpu](int gpu, bool to_device, uint64_t bytes,
                                  std::function<void(double, const std::string&)> done) {
    devices.at(static_cast<size_t>(gpu - first_gpu))->copy(to_device, bytes, std::move(done));
  };
  return s;
}

}  // namespace dualpath::hw
