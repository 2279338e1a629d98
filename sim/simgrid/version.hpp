// The SimGrid version the simulator was built against ("3.32"), for --version output and run metadata.
#pragma once

#include <string>

namespace dualpath::sim {
std::string simgrid_version();
}  // namespace dualpath::sim
