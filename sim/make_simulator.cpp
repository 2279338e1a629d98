// make_simulator (sim/simulator.hpp): the one place that knows both engines, so that the native engine's library
// (dualpath_sim_native: the shared driver pieces and sim/native/) builds, links and is tested without SimGrid.
#include <memory>
#include <stdexcept>

#include "sim/native/native_backend.hpp"
#include "sim/simgrid/simgrid_backend.hpp"
#include "sim/simulator.hpp"

namespace dualpath::sim {

std::unique_ptr<Simulator> make_simulator(NetworkEngine engine, const Hardware& topo, const Deployment& dep,
                                          const QosSpec& qos, const SimSpec& spec, const SimOptions& options) {
  if (engine == NetworkEngine::Simgrid && options.threads > 1)
    throw std::invalid_argument("simulator: the SimGrid engine runs on one thread (SimOptions::threads = 1)");
  if (engine == NetworkEngine::Simgrid) return std::make_unique<SimgridBackend>(topo, dep, qos, spec, options);
  return std::make_unique<NativeBackend>(topo, dep, qos, spec, options);
}

}  // namespace dualpath::sim
