// H2D / D2H go through the GPU's own CNIC (loopback), its PCIe link and the node's half-duplex DRAM.
#include <gtest/gtest.h>

#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimLoopback : public EngineTest {};

constexpr double GB = 1e9;

double h2d_time(Topology t) {
  auto bp = make(t, deployment(1, 0), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.transfer(Hop::H2D, {Loc::Dram, 1}, {Loc::Hbm, 1}, 1 * GB, TrafficClass::Kv, [&] { done_at = b.now(); });
  });
  return done_at;
}

TEST_P(SimLoopback, H2dLimitedByPcieWhenItIsSlowest) {
  Topology t = small_topology();
  t.pcie_bw = 30e9;  // cnic 50, dram 500
  EXPECT_TRUE(near_rel(h2d_time(t), 1 / 30.0, 1e-6));
}

TEST_P(SimLoopback, H2dLimitedByCnicWhenItIsSlowest) {
  Topology t = small_topology();  // cnic 50, pcie 64, dram 500
  EXPECT_TRUE(near_rel(h2d_time(t), 1 / 50.0, 1e-6));
}

TEST_P(SimLoopback, H2dLimitedByDramWhenItIsSlowest) {
  Topology t = small_topology();
  t.dram_bw = 20e9;
  EXPECT_TRUE(near_rel(h2d_time(t), 1 / 20.0, 1e-6));
}

TEST_P(SimLoopback, H2dCrossesDramPcieAndBothCnicSides) {
  auto bp = make(small_topology(), deployment(1, 0), qos_on(), SimSpec{});
  Simulator& b = *bp;
  b.run([&] { b.transfer(Hop::H2D, {Loc::Dram, 1}, {Loc::Hbm, 1}, 1 * GB, TrafficClass::Kv, [] {}); });
  const LinkReport& r = b.links();
  for (const char* name : {"dram0", "pcie1_h2d", "cnic1_rd", "cnic1_wr"})
    EXPECT_TRUE(near_rel(link_named(r, name).bytes(), 1 * GB, 1e-9)) << name;
  for (const char* name : {"pcie1_d2h", "cnic0_rd", "cnic0_wr", "snic0_down"})
    EXPECT_EQ(link_named(r, name).bytes(), 0) << name;
}

TEST_P(SimLoopback, ConcurrentH2dAndD2hShareHalfDuplexDram) {
  // DRAM at 40 GB/s binds (CNIC 50, PCIe 64). H2D on GPU 0 and D2H on GPU 1 share only dram0: 20 GB/s each
  // until the 0.5 GB D2H ends at 25 ms; the H2D's remaining 0.5 GB then runs at 40 GB/s: 12.5 ms more.
  Topology t = small_topology();
  t.dram_bw = 40e9;
  auto bp = make(t, deployment(1, 0), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double h2d_done = -1, d2h_done = -1;
  b.run([&] {
    b.transfer(Hop::H2D, {Loc::Dram, 0}, {Loc::Hbm, 0}, 1 * GB, TrafficClass::Kv, [&] { h2d_done = b.now(); });
    b.transfer(Hop::D2H, {Loc::Hbm, 1}, {Loc::Dram, 1}, 0.5 * GB, TrafficClass::Kv, [&] { d2h_done = b.now(); });
  });
  EXPECT_TRUE(near_rel(d2h_done, 0.025, 1e-6)) << d2h_done;
  EXPECT_TRUE(near_rel(h2d_done, 0.0375, 1e-6)) << h2d_done;
  EXPECT_TRUE(near_rel(link_named(b.links(), "dram0").bytes(), 1.5 * GB, 1e-9));
  EXPECT_TRUE(near_rel(link_named(b.links(), "pcie1_d2h").bytes(), 0.5 * GB, 1e-9));
}

TEST_P(SimLoopback, H2dAndD2hOnOneGpuShareItsCnic) {
  // Both directions of a loopback use the CNIC's read and write sides: 1 GB each at 25 GB/s = 40 ms.
  auto bp = make(small_topology(), deployment(1, 0), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double h2d_done = -1, d2h_done = -1;
  b.run([&] {
    b.transfer(Hop::H2D, {Loc::Dram, 0}, {Loc::Hbm, 0}, 1 * GB, TrafficClass::Kv, [&] { h2d_done = b.now(); });
    b.transfer(Hop::D2H, {Loc::Hbm, 0}, {Loc::Dram, 0}, 1 * GB, TrafficClass::Kv, [&] { d2h_done = b.now(); });
  });
  EXPECT_TRUE(near_rel(h2d_done, 0.040, 1e-6));
  EXPECT_TRUE(near_rel(d2h_done, 0.040, 1e-6));
}

TEST_P(SimLoopback, LatencyIsOneNicHopAfterTheLastByte) {
  Topology t = small_topology();
  t.nic_latency = 5e-6;
  EXPECT_NEAR(h2d_time(t), 0.020 + 5e-6, 1e-9);
}

DUALPATH_BOTH_ENGINES(SimLoopback);

}  // namespace
}  // namespace dualpath::sim::test
