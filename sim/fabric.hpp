// The cluster's network as plain data: which links exist, which links each memory endpoint sends and receives
// through, and the route (links + latency) of a transfer between two endpoints. No SimGrid here: both network
// engines (SimGrid's, sim/simgrid/platform.hpp, and the native one, sim/native/native_backend.hpp) are built from this table,
// so they share link names, indices and routes by construction.
//
// Built from two tables (sim/fabric_table.hpp): the links (FabricLink rows) and the route rules (RouteRule rows, per
// hop and reach: which links of the source's and the destination's GPU, node or storage server a transfer crosses).
// The built-in rules are a star: each endpoint has an UP link list (used by everything it sends) and a DOWN list
// (everything it receives); a transfer a -> b crosses up(a) then down(b), duplicates dropped (SimGrid's StarZone rule).
//   hbm_g   GPU g's HBM:                  up [cnic_g_rd]                         down [cnic_g_wr]
//   dram_g  node DRAM via GPU g's CNIC:    up [dram_n, pcie_g_h2d, cnic_g_rd]     down [cnic_g_wr, pcie_g_d2h, dram_n]
//   sdram_n node DRAM via the node's SNIC: up [dram_n, snic_n_up]                down [snic_n_down, dram_n]
//   stor_k  storage server k:             up [ssd_k_read, stor_k_nic_up]        down [stor_k_nic_down, ssd_k_write]
// so that, e.g., H2D dram_g -> hbm_g = [dram_n, pcie_g_h2d, cnic_g_rd, cnic_g_wr] (the CNIC loopback of the
// paper, steps 3-4), and a storage read stor_k -> sdram_n = [ssd_k_read, stor_k_nic_up, snic_n_down, dram_n].
// A registered rule that routes some pairs of endpoints otherwise (say, two GPUs of one node over NVLink) leaves the
// star for those pairs only (off_star_pairs(): SimGrid's bypass routes).
//
// Each link carries its latency here; a route's latency is the sum over its links plus the endpoints' own
// (the storage request latency), paid by the engines after a transfer's last byte. nic_latency sits on each
// CNIC write side and each SNIC direction (one NIC hop per transfer).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/config/scenario.hpp"
#include "core/run/link_report.hpp"
#include "sim/fabric_table.hpp"

namespace dualpath::sim {

// The nodes' hardware by role (issue 65, mixed hardware): the deployment's prefill nodes [0, P) take `prefill`, its
// decode nodes `decode`; both have the same gpus_per_node and storage section (the loader checks), so the storage
// servers and the GPU numbering are one. Implicit from one Topology: a cluster of one kind of node.
struct Hardware {
  Topology prefill, decode;
  Hardware(const Topology& t) : prefill(t), decode(t) {}  // NOLINT(google-explicit-constructor): one kind of node
  Hardware(const Topology& p, const Topology& d) : prefill(p), decode(d) {}
  const Topology& node(int n, const Deployment& dep) const { return n < dep.prefill_nodes ? prefill : decode; }
};

// The links a transfer crosses (indices into Fabric::links()) and their summed latency.
struct Route {
  static constexpr int kMaxLinks = 8;
  std::array<int32_t, kMaxLinks> link{};
  int n = 0;
  double latency = 0;
};

class Fabric {
 public:
  struct Endpoint {
    std::string name;
    std::vector<int> up, down;  // the star's links (indices into links())
    double latency = 0;  // added to every route starting or ending here (storage request latency)
    Memory memory = Memory::Hbm;
    int node = -1, gpu = -1, server = -1;  // what owns its links (-1: none of that scope)
  };

  // Throws std::invalid_argument on a topology or deployment that cannot be simulated (non-positive
  // bandwidths, no nodes, ...).
  Fabric(const Hardware& hw, const Deployment& dep);
  // The checks of the constructor alone.
  static void validate(const Hardware& hw, const Deployment& dep);

  int nodes() const { return nodes_; }
  int gpus() const { return nodes_ * gpus_per_node_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int servers() const { return servers_; }
  int server_of(int node) const { return node % servers_; }
  // Storage reads into GPU HBM are routed (topology.storage.gdr): only then are their routes built, since each
  // storage server and GPU pair is a route off the star (a SimGrid bypass route).
  bool gdr() const { return gdr_; }

  // Endpoint ids, used with endpoints() and route().
  int hbm(int gpu) const { return gpu; }
  int dram(int gpu) const { return gpus() + gpu; }
  int sdram(int node) const { return 2 * gpus() + node; }
  int storage(int server) const { return 2 * gpus() + nodes_ + server; }

  Route route(int src, int dst) const;
  // Where two endpoints lie relative to each other (never Reach::Any).
  Reach reach(int src, int dst) const;
  const std::vector<LinkInfo>& links() const { return links_; }
  const std::vector<Endpoint>& endpoints() const { return endpoints_; }
  // The (src, dst) endpoint pairs whose route is not up(src) then down(dst), in endpoint order: none under the
  // built-in rules; SimGrid gives each a bypass route.
  std::vector<std::pair<int, int>> off_star_pairs() const;

 private:
  // A route segment resolved to its link row: the link of `row` that belongs to `end`'s owner.
  struct Segment {
    int row;
    End end;
  };
  // The route of the pairs of `src` and `dst` endpoints at `reach`, where it is not the star's.
  struct OffStar {
    Memory src, dst;
    Reach reach;
    std::vector<Segment> segments;
  };
  static void validate_role(const Topology& topo, const Deployment& dep);
  int add_link(LinkInfo info);
  void build_routes();
  std::vector<Segment> resolve(const std::vector<RouteSegment>& segments, Memory src, Memory dst,
                               const std::string& what) const;
  int link_of(Segment s, const Endpoint& at) const;
  const OffStar* off_star(const Endpoint& a, const Endpoint& b) const;

  std::vector<FabricLink> rows_;                  // the link table this fabric was built from
  std::vector<std::vector<int>> row_links_;       // [row][owner] -> link index, -1 where it is left out
  std::vector<OffStar> off_star_;

  int nodes_ = 0;
  int gpus_per_node_ = 0;
  int servers_ = 0;
  bool gdr_ = false;
  std::vector<LinkInfo> links_;
  std::vector<Endpoint> endpoints_;
};

}  // namespace dualpath::sim
