// How a node agent's compute runs: real kernels on a CUDA device (hw/gpu/) when asked and usable, otherwise an
// emulated timer of the cost model's seconds. The description goes into summary.json ("hw.compute") so no result
// is ever mistaken for a GPU measurement.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/config/scenario.hpp"
#include "hw/hw_options.hpp"
#include "hw/node_agent.hpp"

namespace dualpath::hw {

class ComputeDevice;

struct ComputeSetup {
  NodeAgent::KernelRunner kernels;  // empty: emulated
  NodeAgent::CopyRunner copies;     // empty: H2D/D2H go through the transport
  std::string description;
  bool real = false;
  std::vector<std::shared_ptr<ComputeDevice>> devices;  // one per GPU served (kept alive by the runner too)
};

// For GPUs [first_gpu, first_gpu + gpus). options.compute: "emulated", "auto" (CUDA if usable) or "cuda" (throws
// std::runtime_error saying why when no device is usable).
ComputeSetup make_compute_setup(const Scenario& scenario, const HwOptions& options, int first_gpu, int gpus);

}  // namespace dualpath::hw
