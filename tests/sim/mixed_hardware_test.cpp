// Mixed hardware (issue 65): each role's nodes and GPUs get their own topology's links, the storage cluster is one,
// and a transfer between roles is bound by the slower side. Closed forms on both network engines.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimMixedHardware : public EngineTest {};

// Decode nodes with half the prefill nodes' NICs, PCIe and DRAM.
Hardware half_speed_decode() {
  Topology de = small_topology();
  de.name = "slow";
  de.cnic_bw = 25e9;
  de.snic_bw = 25e9;
  de.pcie_bw = 32e9;
  de.dram_bw = 250e9;
  return {small_topology(), de};
}

TEST_P(SimMixedHardware, EachRoleNodesTakeItsOwnLinks) {
  auto bp = make(half_speed_decode(), deployment(1, 2), qos_on(), SimSpec{});
  Simulator& b = *bp;
  b.run([] {});
  const LinkReport& r = b.links();
  EXPECT_DOUBLE_EQ(link_named(r, "snic0_down").bandwidth, 50e9);   // node 0: prefill
  EXPECT_DOUBLE_EQ(link_named(r, "snic1_down").bandwidth, 25e9);   // nodes 1, 2: decode
  EXPECT_DOUBLE_EQ(link_named(r, "snic2_up").bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(link_named(r, "cnic1_rd").bandwidth, 50e9);     // GPUs 0, 1 on node 0
  EXPECT_DOUBLE_EQ(link_named(r, "cnic2_wr").bandwidth, 25e9);     // GPU 2 on node 1
  EXPECT_DOUBLE_EQ(link_named(r, "pcie5_h2d").bandwidth, 32e9);
  EXPECT_DOUBLE_EQ(link_named(r, "dram0").bandwidth, 500e9);
  EXPECT_DOUBLE_EQ(link_named(r, "dram2").bandwidth, 250e9);
}

TEST_P(SimMixedHardware, ReadsAndCrossRoleTransfersRunAtTheSlowerSide) {
  auto bp = make(half_speed_decode(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double pe_read = -1, de_read = -1, de_to_pe = -1;
  b.run([&] {
    // 1 GB into each node's DRAM: 20 ms over the prefill SNIC (50 GB/s), 40 ms over the decode one (25 GB/s).
    b.storage_read(0, 1e9, [&] { pe_read = b.now(); });
    b.storage_read(1, 1e9, [&] { de_read = b.now(); });
    // The DE read path's hop: decode DRAM (GPU 2's CNIC, 25 GB/s) to prefill HBM (GPU 0's CNIC, 50 GB/s), 40 ms.
    b.transfer(Hop::RemoteDramToHbm, {Loc::Dram, 2}, {Loc::Hbm, 0}, 1e9, TrafficClass::Kv,
               [&] { de_to_pe = b.now(); });
  });
  EXPECT_TRUE(near_rel(pe_read, 0.020, 1e-9)) << pe_read;
  EXPECT_TRUE(near_rel(de_read, 0.040, 1e-9)) << de_read;
  EXPECT_TRUE(near_rel(de_to_pe, 0.040, 1e-9)) << de_to_pe;
}

TEST_P(SimMixedHardware, RolesMustShareGeometryAndStorage) {
  Hardware hw = half_speed_decode();
  hw.decode.gpus_per_node = 4;
  EXPECT_THROW(make(hw, deployment(1, 1), qos_on(), SimSpec{}), std::invalid_argument);
  hw = half_speed_decode();
  hw.decode.storage.latency = 1e-3;
  EXPECT_THROW(make(hw, deployment(1, 1), qos_on(), SimSpec{}), std::invalid_argument);
}

DUALPATH_BOTH_ENGINES(SimMixedHardware);

}  // namespace
}  // namespace dualpath::sim::test
