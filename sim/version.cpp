// Reports the SimGrid version the simulator was built against.
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/version.h>
#include <string>
namespace dualpath::sim {
std::string simgrid_version() {
  return std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR);
}
}  // namespace dualpath::sim
