// The SimGrid platform of one cluster: hosts are memory endpoints, links are the bandwidth bottlenecks.
//
// One star zone. Each endpoint host has an UP link list (used by everything it sends) and a DOWN list
// (everything it receives); a transfer a -> b crosses up(a) then down(b), duplicates dropped (StarZone rule).
//   hbm_g   GPU g's HBM:                  up [cnic_g_rd]                         down [cnic_g_wr]
//   dram_g  node DRAM via GPU g's CNIC:    up [dram_n, pcie_g_h2d, cnic_g_rd]     down [cnic_g_wr, pcie_g_d2h, dram_n]
//   sdram_n node DRAM via the node's SNIC: up [dram_n, snic_n_up]                down [snic_n_down, dram_n]
//   stor_k  storage server k:             up [ssd_k_read, stor_k_nic_up]        down [stor_k_nic_down, ssd_k_write]
// so that, e.g., H2D dram_g -> hbm_g = [dram_n, pcie_g_h2d, cnic_g_rd, cnic_g_wr] (the CNIC loopback of the
// paper, steps 3-4), and a storage read stor_k -> sdram_n = [ssd_k_read, stor_k_nic_up, snic_n_down, dram_n].
// There is no shared core link (the compute and storage fabrics are non-blocking), which keeps flows of
// different nodes in separate max-min components (simgrid notes §3.3).
//
// Latency is not given to SimGrid (the QoS penalty hook skips SimGrid's latency phase, see qos.hpp); each link
// carries its latency in our own table and a route's latency is the sum over its links, applied by the backend.
// nic_latency sits on each CNIC write side and each SNIC direction (one NIC hop per transfer); the storage
// request latency belongs to the storage endpoint (paid once by every read and write, modelled NIC or not).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <simgrid/forward.h>

#include "core/config/scenario.hpp"
#include "sim/link_report.hpp"

namespace dualpath::sim {

// The links a transfer crosses (indices into Platform::links()) and their summed latency.
struct Route {
  static constexpr int kMaxLinks = 8;
  std::array<int32_t, kMaxLinks> link{};
  int n = 0;
  double latency = 0;
};

class Platform {
 public:
  // Builds the platform into the (already created) SimGrid engine. Throws std::invalid_argument on a topology
  // or deployment that cannot be simulated (non-positive bandwidths, no nodes, ...).
  Platform(const Topology& topo, const Deployment& dep);
  // The checks of the constructor, without SimGrid: lets callers fail before creating the engine.
  static void validate(const Topology& topo, const Deployment& dep);

  int nodes() const { return nodes_; }
  int gpus() const { return nodes_ * gpus_per_node_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int servers() const { return servers_; }
  int server_of(int node) const { return node % servers_; }

  // Endpoint ids, used with host() and route().
  int hbm(int gpu) const { return gpu; }
  int dram(int gpu) const { return gpus() + gpu; }
  int sdram(int node) const { return 2 * gpus() + node; }
  int storage(int server) const { return 2 * gpus() + nodes_ + server; }

  simgrid::s4u::Host* host(int endpoint) const { return endpoints_[static_cast<size_t>(endpoint)].host; }
  simgrid::s4u::Host* control_host() const { return control_; }
  Route route(int src, int dst) const;

  const std::vector<LinkInfo>& links() const { return links_; }

 private:
  struct Endpoint {
    simgrid::s4u::Host* host = nullptr;
    std::vector<int> up, down;
    double latency = 0;  // added to every route starting or ending here (storage request latency)
  };
  int add_link(simgrid::s4u::NetZone* zone, LinkInfo info);
  void add_endpoint(simgrid::s4u::NetZone* zone, const std::string& name, std::vector<int> up,
                    std::vector<int> down, double latency = 0);

  int nodes_ = 0;
  int gpus_per_node_ = 0;
  int servers_ = 0;
  std::vector<LinkInfo> links_;
  std::vector<simgrid::s4u::Link*> sg_links_;
  std::vector<Endpoint> endpoints_;
  simgrid::s4u::Host* control_ = nullptr;
};

}  // namespace dualpath::sim
