// The simulated network as two tables (issue 64), which Fabric (sim/fabric.hpp) builds from:
//  - FabricLink rows: the links that exist, one per owner of the row's kind (each node, GPU or storage server, as
//    the kind's LinkKind::scope says) in row order, named <prefix><owner index><suffix> ("cnic3_rd");
//  - RouteRule rows: the links each transfer crosses, per use (a Backend::transfer's hop, a storage read or a
//    storage write) and where its two memories lie (the same GPU, two GPUs of one node, other nodes), as segments:
//    "the link of kind K that belongs to the source's (destination's) GPU, node or server".
// A link kind that needs routing is then three rows: its row in the link-kind table (core/vocab/link_kinds.hpp),
// the fabric's links of it (rows of builtin_links() in fabric_table.cpp, or register_fabric_link), and a route
// rule saying where transfers take them (a row of builtin_route_rules() there, or register_route_rule).
// tests/sim/extension/link_route_extension_test.cpp tries it once: an "nvlink" kind that carries collectives
// between two GPUs of one node (docs/architecture.md "How to add a link kind").
//
// Both network engines route by the two memories alone (SimGrid routes between hosts): every use that joins the
// same two kinds of memory at the same reach must cross the same links, which Fabric checks. The built-in rows are
// a star (a memory sends through the same links whatever the destination, and receives through the same links
// whatever the source: SimGrid's star zone); a rule that leaves the star is a SimGrid bypass route per pair of
// memories it covers (sim/simgrid/platform.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "core/vocab/link_kinds.hpp"

namespace dualpath::sim {

// One link of each owner: bandwidth and latency from the topology. A bandwidth of 0 leaves the link out, and out of
// every route (a storage bandwidth of 0: "not a bottleneck").
struct FabricLink {
  LinkClass cls;
  const char* prefix;            // the name before the owner's index: "cnic" for "cnic3_rd"
  std::string_view suffix;       // the name after it: "_rd"; "" for none. (cls, suffix) names the row in routes
  double (*bandwidth)(const Topology&);  // bytes/s
  double (*latency)(const Topology&);    // seconds a transfer crossing the link adds after its last byte
};

// The memory at one end of a route (the fabric's endpoints): a GPU's HBM, the node's DRAM reached through that
// GPU's CNIC (Loc::Dram), the node's DRAM reached through its storage NIC, a storage server.
enum class Memory : uint8_t { Hbm, Dram, NodeDram, Storage };

// Where a route's two memories lie relative to each other.
enum class Reach : uint8_t {
  Any,
  SameGpu,    // both reached through one GPU (H2D, D2H)
  SameNode,   // one node, not through one GPU (two GPUs of a node)
  OtherNode,  // two nodes, or a node and a storage server
};

// What a route carries: a transfer of one hop (Backend::transfer), or storage I/O (storage_read, storage_write).
struct RouteUse {
  enum class Kind : uint8_t { Transfer, StorageRead, StorageWrite, StorageReadHbm };
  Kind kind = Kind::Transfer;
  Hop hop = Hop::H2D;  // Kind::Transfer only
  friend bool operator==(RouteUse, RouteUse) = default;
};
constexpr RouteUse transfer_of(Hop h) { return {RouteUse::Kind::Transfer, h}; }
inline constexpr RouteUse kStorageRead{RouteUse::Kind::StorageRead};
inline constexpr RouteUse kStorageWrite{RouteUse::Kind::StorageWrite};
// storage -> a GPU's HBM through the node's SNIC and the GPU's PCIe (GPUDirect Storage, topology.storage.gdr)
inline constexpr RouteUse kStorageReadHbm{RouteUse::Kind::StorageReadHbm};
std::string use_name(RouteUse u);  // "H2D", "storage read"

// Which end of a route a segment's link belongs to.
enum class End : uint8_t { Src, Dst };

// The link of kind `cls` that belongs to `end`'s GPU, node or storage server, as the kind's scope says: the
// FabricLink row of that class with suffix `suffix`, or with no suffix given, the class's only row.
struct RouteSegment {
  LinkClass cls;
  End end;
  std::string_view suffix = {};  // "_h2d" of the PCIe rows, "_ssd_read" of the storage ones
  friend bool operator==(const RouteSegment&, const RouteSegment&) = default;
};

// The links a use crosses at a reach, in order (a link named twice is crossed once). The first rule that matches a
// transfer's use and reach routes it: the registered rules in registration order, then the built-in ones.
struct RouteRule {
  RouteUse use;
  Reach reach = Reach::Any;
  std::vector<RouteSegment> segments;
};

// The memories a use joins and the reaches it can have (Simulator::transfer refuses the others).
struct UseEnds {
  Memory src, dst;
  bool same_gpu, same_node, other_node;
  bool has(Reach r) const;
};
UseEnds use_ends(RouteUse u);
// Every use, in Hop order then storage read and write.
const std::vector<RouteUse>& route_uses();

// The tables: built-in rows and then the registered ones (links), or registered rows first (rules). The built-in
// storage-read rule drops the node's DRAM under the mutant sdram_skips_dram (core/mutation/mutant.hpp).
std::vector<FabricLink> fabric_links();
std::vector<RouteRule> route_rules();
// The built-in rules alone: the star both engines start from.
std::vector<RouteRule> builtin_route_rules();

// Adds rows from outside this file (tests/sim/extension/link_route_extension_test.cpp). std::invalid_argument when
// the class has no link-kind row, a link row with its class and suffix exists, or a rule can never apply (a reach
// its use cannot have) or has no segments. A rule whose segments name no link row, or that gives two uses joining
// the same memories different links, is refused when a Fabric is built. Not thread-safe: register before runs.
void register_fabric_link(FabricLink row);
void register_route_rule(RouteRule rule);

}  // namespace dualpath::sim
