// The SimGrid platform of one cluster, built from its Fabric (sim/fabric.hpp): one SimGrid host per memory
// endpoint and one SHARED SimGrid link per fabric link, in the same order, with the fabric's up/down link lists
// as the star zone's routes and a bypass route for each pair of endpoints a route rule takes off the star
// (Fabric::off_star_pairs).
//
// Latency is not given to SimGrid (the QoS penalty hook skips SimGrid's latency phase, see qos_penalty.hpp); the fabric
// keeps each link's latency and the backend applies a route's latency after its last byte.
#pragma once

#include <vector>

#include <simgrid/forward.h>

#include "core/config/scenario.hpp"
#include "sim/fabric.hpp"

namespace dualpath::sim {

class Platform {
 public:
  // Builds the platform into the (already created) SimGrid engine. Throws std::invalid_argument on a topology
  // or deployment that cannot be simulated (Fabric::validate).
  Platform(const Hardware& hw, const Deployment& dep);

  const Fabric& fabric() const { return fabric_; }
  simgrid::s4u::Host* host(int endpoint) const { return hosts_[static_cast<size_t>(endpoint)]; }
  simgrid::s4u::Host* control_host() const { return control_; }
  simgrid::s4u::Link* link(int index) const { return sg_links_[static_cast<size_t>(index)]; }

 private:
  Fabric fabric_;
  std::vector<simgrid::s4u::Link*> sg_links_;
  std::vector<simgrid::s4u::Host*> hosts_;
  simgrid::s4u::Host* control_ = nullptr;
};

}  // namespace dualpath::sim
