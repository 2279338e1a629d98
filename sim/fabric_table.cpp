#include "sim/fabric_table.hpp"

#include <cctype>
#include <stdexcept>
#include <utility>

#include "core/mutation/mutant.hpp"

namespace dualpath::sim {

namespace {

double zero(const Topology&) { return 0; }
double nic_latency(const Topology& t) { return t.nic_latency; }

// The links, in the order links.csv lists them: per node, then per GPU, then per storage server, each owner's links
// in row order. A node's SNIC read link carries what its storage client delivers (snic_bw x
// storage.client_read_efficiency, docs/cost-model.md "Storage reads"); writes leave at the line rate. nic_latency
// sits on each CNIC write side and each SNIC direction (one NIC hop per transfer).
const std::vector<FabricLink>& builtin_links() {
  static const std::vector<FabricLink> rows = {
      {LinkClass::Dram, "dram", "", [](const Topology& t) { return t.dram_bw; }, zero},
      {LinkClass::SnicDown, "snic", "_down", [](const Topology& t) { return t.snic_read_bw(); }, nic_latency},
      {LinkClass::SnicUp, "snic", "_up", [](const Topology& t) { return t.snic_bw; }, nic_latency},
      {LinkClass::CnicRd, "cnic", "_rd", [](const Topology& t) { return t.cnic_bw; }, zero},
      {LinkClass::CnicWr, "cnic", "_wr", [](const Topology& t) { return t.cnic_bw; }, nic_latency},
      {LinkClass::Pcie, "pcie", "_h2d", [](const Topology& t) { return t.pcie_bw; }, zero},
      {LinkClass::Pcie, "pcie", "_d2h", [](const Topology& t) { return t.pcie_bw; }, zero},
      {LinkClass::Storage, "stor", "_ssd_read", [](const Topology& t) { return t.storage.ssd_read_bw; }, zero},
      {LinkClass::Storage, "stor", "_nic_up", [](const Topology& t) { return t.storage.server_nic_bw; }, zero},
      {LinkClass::Storage, "stor", "_nic_down", [](const Topology& t) { return t.storage.server_nic_bw; }, zero},
      {LinkClass::Storage, "stor", "_ssd_write", [](const Topology& t) { return t.storage.ssd_write_bw; }, zero},
  };
  return rows;
}

std::vector<FabricLink>& registered_links() {
  static std::vector<FabricLink> rows;
  return rows;
}
std::vector<RouteRule>& registered_rules() {
  static std::vector<RouteRule> rules;
  return rules;
}

bool plain_text(std::string_view s) {
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace

std::string use_name(RouteUse u) {
  switch (u.kind) {
    case RouteUse::Kind::StorageRead: return "storage read";
    case RouteUse::Kind::StorageWrite: return "storage write";
    case RouteUse::Kind::StorageReadHbm: return "storage read into HBM";
    case RouteUse::Kind::Transfer: break;
  }
  return hop_name(u.hop);
}

bool UseEnds::has(Reach r) const {
  switch (r) {
    case Reach::Any: return same_gpu || same_node || other_node;
    case Reach::SameGpu: return same_gpu;
    case Reach::SameNode: return same_node;
    case Reach::OtherNode: return other_node;
  }
  return false;
}

UseEnds use_ends(RouteUse u) {
  switch (u.kind) {
    case RouteUse::Kind::StorageRead: return {Memory::Storage, Memory::NodeDram, false, false, true};
    case RouteUse::Kind::StorageWrite: return {Memory::NodeDram, Memory::Storage, false, false, true};
    case RouteUse::Kind::StorageReadHbm: return {Memory::Storage, Memory::Hbm, false, false, true};
    case RouteUse::Kind::Transfer: break;
  }
  switch (u.hop) {  // what Simulator::transfer accepts of each hop
    case Hop::H2D: return {Memory::Dram, Memory::Hbm, true, false, false};
    case Hop::D2H: return {Memory::Hbm, Memory::Dram, true, false, false};
    case Hop::HbmToRemoteDram: return {Memory::Hbm, Memory::Dram, true, true, true};
    case Hop::RemoteDramToHbm: return {Memory::Dram, Memory::Hbm, true, true, true};
    // (a pull from decode HBM, pe-pull-from-de, is HBM to HBM too: both engines route by the two memories, so it takes
    // the collective's route, and a rule that moves one, such as an NVLink inside a node, moves both)
    case Hop::Collective:
    case Hop::RemoteHbmToHbm: return {Memory::Hbm, Memory::Hbm, false, true, true};
    case Hop::PoolRead:
    case Hop::PoolWrite: return {Memory::Dram, Memory::Dram, false, false, true};
  }
  throw std::logic_error("route table: a hop without ends");
}

const std::vector<RouteUse>& route_uses() {
  static const std::vector<RouteUse> uses = {
      transfer_of(Hop::H2D),        transfer_of(Hop::D2H),      transfer_of(Hop::HbmToRemoteDram),
      transfer_of(Hop::RemoteDramToHbm), transfer_of(Hop::Collective), transfer_of(Hop::PoolRead),
      transfer_of(Hop::PoolWrite),  kStorageRead, kStorageWrite, kStorageReadHbm,
  };
  return uses;
}

std::vector<FabricLink> fabric_links() {
  std::vector<FabricLink> rows = builtin_links();
  rows.insert(rows.end(), registered_links().begin(), registered_links().end());
  return rows;
}

// A GPU's HBM sends through its CNIC's read side and receives through its write side; the node's DRAM reached
// through a GPU's CNIC adds that GPU's PCIe and the DRAM itself (so H2D is dram, pcie_h2d, cnic_rd, cnic_wr: the
// paper's CNIC loopback, steps 3-4); storage I/O crosses the server's SSD and NIC, then the node's SNIC and DRAM.
// There is no shared core link (the compute and storage fabrics are non-blocking), which keeps flows of different
// nodes in separate max-min components (simgrid notes §3.3).
std::vector<RouteRule> builtin_route_rules() {
  constexpr End S = End::Src, D = End::Dst;
  const RouteSegment dram_s{LinkClass::Dram, S}, dram_d{LinkClass::Dram, D};
  const RouteSegment h2d_s{LinkClass::Pcie, S, "_h2d"}, d2h_d{LinkClass::Pcie, D, "_d2h"};
  const RouteSegment rd_s{LinkClass::CnicRd, S}, wr_d{LinkClass::CnicWr, D};
  const std::vector<RouteSegment> from_dram = {dram_s, h2d_s, rd_s}, into_dram = {wr_d, d2h_d, dram_d};
  auto join = [](std::vector<RouteSegment> a, const std::vector<RouteSegment>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  std::vector<RouteSegment> storage_read = {{LinkClass::Storage, S, "_ssd_read"},
                                            {LinkClass::Storage, S, "_nic_up"},
                                            {LinkClass::SnicDown, D}};
  if (!mutant("sdram_skips_dram")) storage_read.push_back(dram_d);
  return {
      {transfer_of(Hop::H2D), Reach::Any, join(from_dram, {wr_d})},
      {transfer_of(Hop::D2H), Reach::Any, join({rd_s}, into_dram)},
      {transfer_of(Hop::HbmToRemoteDram), Reach::Any, join({rd_s}, into_dram)},
      {transfer_of(Hop::RemoteDramToHbm), Reach::Any, join(from_dram, {wr_d})},
      {transfer_of(Hop::Collective), Reach::Any, {rd_s, wr_d}},
      {transfer_of(Hop::PoolRead), Reach::Any, join(from_dram, into_dram)},
      {transfer_of(Hop::PoolWrite), Reach::Any, join(from_dram, into_dram)},
      {kStorageRead, Reach::Any, storage_read},
      // GPUDirect Storage: the SNIC writes into the GPU through the GPU's PCIe link, not through node DRAM and the
      // CNIC loopback. It leaves the star (a node's HBM receives through its CNIC otherwise), so it is a rule of its
      // own reach, which both engines route as given (SimGrid as a bypass route).
      {kStorageReadHbm, Reach::OtherNode,
       {{LinkClass::Storage, S, "_ssd_read"}, {LinkClass::Storage, S, "_nic_up"}, {LinkClass::SnicDown, D}, {LinkClass::Pcie, D, "_h2d"}}},
      {kStorageWrite, Reach::Any,
       {dram_s, {LinkClass::SnicUp, S}, {LinkClass::Storage, D, "_nic_down"}, {LinkClass::Storage, D, "_ssd_write"}}},
  };
}

std::vector<RouteRule> route_rules() {
  std::vector<RouteRule> rules = registered_rules();
  const std::vector<RouteRule> builtin = builtin_route_rules();
  rules.insert(rules.end(), builtin.begin(), builtin.end());
  return rules;
}

void register_fabric_link(FabricLink row) {
  bool known = false;
  for (const auto& k : link_kinds()) known = known || k.cls == row.cls;
  if (!known) throw std::invalid_argument("register_fabric_link: the class has no link-kind row (register_link_kind)");
  if (!row.prefix || !plain_text(row.prefix) || std::string_view(row.prefix).empty() || !plain_text(row.suffix))
    throw std::invalid_argument("register_fabric_link: expected a name prefix and suffix of letters, digits, '_', '-'");
  if (!row.bandwidth || !row.latency)
    throw std::invalid_argument("register_fabric_link: expected a bandwidth and a latency");
  for (const auto& r : fabric_links())
    if (r.cls == row.cls && r.suffix == row.suffix)
      throw std::invalid_argument(std::string("register_fabric_link: kind ") + link_kind(row.cls).name +
                                  " already has links with suffix \"" + std::string(row.suffix) + "\"");
  registered_links().push_back(row);
}

void register_route_rule(RouteRule rule) {
  if (rule.segments.empty()) throw std::invalid_argument("register_route_rule: a route needs at least one segment");
  if (!use_ends(rule.use).has(rule.reach))
    throw std::invalid_argument("register_route_rule: a " + use_name(rule.use) + " never has that reach");
  registered_rules().push_back(std::move(rule));
}

}  // namespace dualpath::sim
