// docs/architecture.md "How to add a link kind", tried once for a kind that needs routing. An "nvlink" kind (one per
// GPU, split into _tx and _rx) is added from this one file in three places:
//   1. its link-kind row (register_link_kind; in the tree, a row of core/vocab/link_kinds.cpp),
//   2. the fabric's links of it, one row per direction (register_fabric_link; in the tree, rows of builtin_links()
//      in sim/fabric_table.cpp),
//   3. a route rule saying where transfers take it (register_route_rule; in the tree, a row of
//      builtin_route_rules() there): a collective between two GPUs of one node goes out of the source GPU's
//      NVLink and into the destination's.
// On both network engines such a collective then takes bytes / NVLink bandwidth and no CNIC carries any of it, while
// collectives between nodes and the other hops within a node keep the CNIC routes they had.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../sim_fixture.hpp"
#include "sim/fabric.hpp"
#include "sim/fabric_table.hpp"

namespace dualpath::sim::test {
namespace {

constexpr double GB = 1e9;
constexpr double kNvlinkBw = 400e9;  // bytes/s per direction and GPU

// 1. The kind.
const LinkClass kNvlink = register_link_kind({LinkClass{}, "nvlink", LinkKind::PerGpu, {"_tx", "_rx"}});
// 2. Its links: one per GPU and direction, named nvlink<gpu>_tx and nvlink<gpu>_rx.
[[maybe_unused]] const bool kNvlinkLinks = [] {
  for (const std::string_view direction : {std::string_view("_tx"), std::string_view("_rx")})
    register_fabric_link({kNvlink, "nvlink", direction, [](const Topology&) { return kNvlinkBw; },
                          [](const Topology&) { return 0.0; }});
  return true;
}();
// 3. Where they are used.
[[maybe_unused]] const bool kNvlinkRoute = [] {
  register_route_rule({transfer_of(Hop::Collective), Reach::SameNode,
                       {{kNvlink, End::Src, "_tx"}, {kNvlink, End::Dst, "_rx"}}});
  return true;
}();

bool is_cnic(const LinkInfo& l) { return l.cls == LinkClass::CnicRd || l.cls == LinkClass::CnicWr; }
bool is_nvlink(const LinkInfo& l) { return l.cls == kNvlink; }

class LinkRouteExtension : public EngineTest {};

TEST_P(LinkRouteExtension, ACollectiveWithinANodeTakesNvlinkAlone) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.transfer(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 1}, 1 * GB, TrafficClass::Model,
               [&] { done_at = b.now(); });
  });
  EXPECT_TRUE(near_rel(done_at, 1 * GB / kNvlinkBw, 1e-6)) << done_at;  // 2.5 ms; over the CNICs it took 20 ms
  const LinkReport& r = b.links();
  EXPECT_TRUE(near_rel(link_named(r, "nvlink0_tx").bytes(), 1 * GB, 1e-9));
  EXPECT_TRUE(near_rel(link_named(r, "nvlink1_rx").bytes(), 1 * GB, 1e-9));
  EXPECT_STREQ(link_class_name(link_named(r, "nvlink0_tx").cls), "nvlink");
  for (const auto& l : r.links) {
    if (is_cnic(l)) {
      EXPECT_EQ(l.bytes(), 0) << l.name;
    }
    if (is_nvlink(l) && l.name != "nvlink0_tx" && l.name != "nvlink1_rx") {
      EXPECT_EQ(l.bytes(), 0) << l.name;
    }
  }
}

TEST_P(LinkRouteExtension, BetweenNodesAndForOtherHopsTheCnicRoutesStay) {
  // At once: a collective between nodes (GPU 1 -> GPU 2: cnic1_rd, cnic2_wr) and a PE -> DE send within node 0
  // (GPU 0's HBM -> the DRAM through GPU 1's CNIC: cnic0_rd, cnic1_wr, pcie1_d2h, dram0). They share no link, so
  // each runs at the 50 GB/s of its CNICs: 1 GB in 20 ms; no NVLink carries a byte.
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double collective_at = -1, send_at = -1;
  b.run([&] {
    b.transfer(Hop::Collective, {Loc::Hbm, 1}, {Loc::Hbm, 2}, 1 * GB, TrafficClass::Model,
               [&] { collective_at = b.now(); });
    b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, 0}, {Loc::Dram, 1}, 1 * GB, TrafficClass::Kv,
               [&] { send_at = b.now(); });
  });
  EXPECT_TRUE(near_rel(collective_at, 0.020, 1e-6)) << collective_at;
  EXPECT_TRUE(near_rel(send_at, 0.020, 1e-6)) << send_at;
  const LinkReport& r = b.links();
  for (const char* name : {"cnic1_rd", "cnic2_wr", "cnic0_rd", "cnic1_wr", "pcie1_d2h", "dram0"})
    EXPECT_TRUE(near_rel(link_named(r, name).bytes(), 1 * GB, 1e-9)) << name;
  for (const auto& l : r.links) {
    if (is_nvlink(l)) {
      EXPECT_EQ(l.bytes(), 0) << l.name;
    }
  }
}

DUALPATH_BOTH_ENGINES(LinkRouteExtension);

// The fabric itself: the built-in links keep their names and relative order (each GPU's NVLink pair follows its
// CNIC and PCIe links), and the rule takes exactly the same-node GPU pairs off the star.
TEST(LinkRouteExtensionFabric, LinksAndRoutes) {
  const Fabric f(small_topology(), deployment(1, 1));  // 2 nodes x 2 GPUs
  std::vector<std::string> names;
  for (const auto& l : f.links()) names.push_back(l.name);
  const std::vector<std::string> gpu0 = {"cnic0_rd", "cnic0_wr", "pcie0_h2d", "pcie0_d2h", "nvlink0_tx", "nvlink0_rx"};
  const auto at = std::find(names.begin(), names.end(), "cnic0_rd");
  ASSERT_NE(at, names.end());
  EXPECT_EQ(std::vector<std::string>(at, at + 6), gpu0);
  EXPECT_EQ(names.front(), "dram0");
  EXPECT_EQ(names.size(), 2 * 3 + 4 * 6u);  // per node dram, snic down/up; per GPU 4 + 2; storage not modelled

  auto route_names = [&](int src, int dst) {
    std::vector<std::string> out;
    const Route r = f.route(src, dst);
    for (int i = 0; i < r.n; ++i) out.push_back(f.links()[static_cast<size_t>(r.link[static_cast<size_t>(i)])].name);
    return out;
  };
  EXPECT_EQ(route_names(f.hbm(0), f.hbm(1)), (std::vector<std::string>{"nvlink0_tx", "nvlink1_rx"}));
  EXPECT_EQ(route_names(f.hbm(3), f.hbm(2)), (std::vector<std::string>{"nvlink3_tx", "nvlink2_rx"}));
  EXPECT_EQ(route_names(f.hbm(1), f.hbm(2)), (std::vector<std::string>{"cnic1_rd", "cnic2_wr"}));
  EXPECT_EQ(route_names(f.hbm(0), f.dram(1)),
            (std::vector<std::string>{"cnic0_rd", "cnic1_wr", "pcie1_d2h", "dram0"}));
  const std::vector<std::pair<int, int>> off = {{0, 1}, {1, 0}, {2, 3}, {3, 2}};
  EXPECT_EQ(f.off_star_pairs(), off);
}

}  // namespace
}  // namespace dualpath::sim::test
