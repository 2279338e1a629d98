#include "sim/simgrid/version.hpp"

#include <xbt/base.h>  // simgrid/version.h uses these export macros without including them
#include <simgrid/version.h>

namespace dualpath::sim {
std::string simgrid_version() {
  return std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR);
}
}  // namespace dualpath::sim
