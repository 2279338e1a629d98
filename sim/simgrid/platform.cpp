#include "sim/simgrid/platform.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <stdexcept>
#include <string>

namespace dualpath::sim {

namespace sg4 = simgrid::s4u;

namespace {

// SimGrid needs a CPU speed for every host; nothing runs on ours (compute is a timer, see simgrid_backend.hpp).
constexpr double kHostSpeed = 1e9;

}  // namespace

Platform::Platform(const Hardware& hw, const Deployment& dep) : fabric_(hw, dep) {
  sg4::NetZone* zone = sg4::create_star_zone("cluster");
  // Every link is SHARED (max-min between the flows crossing it); directions are separate links.
  for (const auto& l : fabric_.links()) sg_links_.push_back(zone->create_link(l.name, l.bandwidth));
  auto to_route = [this](const std::vector<int>& ids) {
    std::vector<sg4::LinkInRoute> r;
    for (int id : ids) r.emplace_back(sg_links_[static_cast<size_t>(id)]);
    return r;
  };
  for (const auto& ep : fabric_.endpoints()) {
    sg4::Host* h = zone->create_host(ep.name, kHostSpeed);
    auto* np = h->get_netpoint();
    zone->add_route(np, nullptr, nullptr, nullptr, to_route(ep.up), false);    // everything this host sends
    zone->add_route(nullptr, np, nullptr, nullptr, to_route(ep.down), false);  // everything it receives
    hosts_.push_back(h);
  }
  // Pairs a route rule takes off the star (none under the built-in rules): a bypass route each, the fabric's links.
  for (const auto& [src, dst] : fabric_.off_star_pairs()) {
    const Route r = fabric_.route(src, dst);
    const auto& eps = fabric_.endpoints();
    if (r.n == 0)
      throw std::invalid_argument("simulator: a route rule gives " + eps[static_cast<size_t>(src)].name + " -> " +
                                  eps[static_cast<size_t>(dst)].name + " no links");
    std::vector<sg4::LinkInRoute> links;
    for (int i = 0; i < r.n; ++i) links.emplace_back(sg_links_[static_cast<size_t>(r.link[static_cast<size_t>(i)])]);
    zone->add_bypass_route(hosts_[static_cast<size_t>(src)]->get_netpoint(),
                           hosts_[static_cast<size_t>(dst)]->get_netpoint(), nullptr, nullptr, links);
  }
  // The driver actor needs a host to live on; it sends nothing.
  control_ = zone->create_host("control", kHostSpeed);
  zone->seal();
}

}  // namespace dualpath::sim
