// A node process in multi-process mode: serves the scheduler's operations with its NodeAgent until told to stop,
// then sends its report (what it read, wrote, pulled and computed, and any errors) to the scheduler.
#pragma once

#include <string>

#include "core/config/scenario.hpp"
#include "hw/compute_setup.hpp"
#include "hw/hw_options.hpp"
#include "hw/node_resources.hpp"

namespace dualpath::hw {

// `res` serves node `node`'s GPUs with one SNIC bucket; its transports are already connected to every peer.
void serve_node(int node, const HwOptions& options, NodeResources& res, const ComputeSetup& compute);

}  // namespace dualpath::hw
