// Storage reads and writes cross the node's SNIC (and the storage server): closed-form completion times.
#include <gtest/gtest.h>

#include <vector>

#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimStorage : public EngineTest {};

constexpr double GB = 1e9;

TEST_P(SimStorage, OneReadTakesBytesOverSnicPlusLatency) {
  Topology t = small_topology();
  t.nic_latency = 2e-6;
  t.storage.latency = 100e-6;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] { b.storage_read(0, 1 * GB, [&] { done_at = b.now(); }); });
  // 1 GB / 50 GB/s = 20 ms, then the SNIC hop and the storage request latency.
  EXPECT_NEAR(done_at, 0.020 + 2e-6 + 100e-6, 1e-9);
  EXPECT_TRUE(near_rel(link_named(b.links(), "snic0_down").bytes(), 1 * GB, 1e-9));
  EXPECT_TRUE(near_rel(link_named(b.links(), "dram0").bytes(), 1 * GB, 1e-9));
  EXPECT_EQ(link_named(b.links(), "snic1_down").bytes(), 0);
  EXPECT_EQ(link_named(b.links(), "snic0_up").bytes(), 0);
}

TEST_P(SimStorage, TwoReadsOnOneNodeShareItsSnic) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  std::vector<double> done;
  b.run([&] {
    for (int i = 0; i < 2; ++i) b.storage_read(0, 1 * GB, [&] { done.push_back(b.now()); });
  });
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(near_rel(done[0], 0.040, 1e-6));
  EXPECT_TRUE(near_rel(done[1], 0.040, 1e-6));
}

TEST_P(SimStorage, SplitAcrossTwoNodesUsesBothSnics) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  std::vector<double> done;
  b.run([&] {
    b.storage_read(0, 1 * GB, [&] { done.push_back(b.now()); });
    b.storage_read(1, 1 * GB, [&] { done.push_back(b.now()); });
  });
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(near_rel(done[0], 0.020, 1e-6));
  EXPECT_TRUE(near_rel(done[1], 0.020, 1e-6));
}

TEST_P(SimStorage, SharedStorageServerNicBinds) {
  // One storage server for two nodes, its NIC as fast as one SNIC: the two reads share it.
  Topology t = small_topology();
  t.storage.servers = 1;
  t.storage.server_nic_bw = 50e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  std::vector<double> done;
  b.run([&] {
    b.storage_read(0, 1 * GB, [&] { done.push_back(b.now()); });
    b.storage_read(1, 1 * GB, [&] { done.push_back(b.now()); });
  });
  ASSERT_EQ(done.size(), 2u);
  EXPECT_TRUE(near_rel(done[1], 0.040, 1e-6));
  EXPECT_TRUE(near_rel(link_named(b.links(), "stor0_nic_up").bytes(), 2 * GB, 1e-9));
}

TEST_P(SimStorage, SsdReadBandwidthBindsBelowTheSnic) {
  Topology t = small_topology();
  t.storage.ssd_read_bw = 20e9;
  auto bp = make(t, deployment(1, 0), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] { b.storage_read(0, 1 * GB, [&] { done_at = b.now(); }); });
  EXPECT_TRUE(near_rel(done_at, 0.050, 1e-6));
}

TEST_P(SimStorage, WriteUsesSnicUpAndSsdWrite) {
  Topology t = small_topology();
  t.storage.ssd_write_bw = 25e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] { b.storage_write(1, 1 * GB, [&] { done_at = b.now(); }); });
  EXPECT_TRUE(near_rel(done_at, 0.040, 1e-6));  // SSD write 25 GB/s binds
  EXPECT_TRUE(near_rel(link_named(b.links(), "snic1_up").bytes(), 1 * GB, 1e-9));
  EXPECT_TRUE(near_rel(link_named(b.links(), "stor1_ssd_write").bytes(), 1 * GB, 1e-9));
  EXPECT_EQ(link_named(b.links(), "snic1_down").bytes(), 0);
}

// GPUDirect Storage (topology.storage.gdr): a read into GPU 1's HBM crosses the node's SNIC and the GPU's PCIe link,
// not node DRAM or the CNIC loopback. A PCIe link of 20 GB/s binds: 1 GB takes 50 ms.
TEST_P(SimStorage, ReadIntoHbmCrossesTheSnicAndTheGpusPcie) {
  Topology t = small_topology();
  t.pcie_bw = 20e9;
  t.storage.gdr = true;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] { b.storage_read_to_hbm(1, BlockRanges{}, 1 * GB, [&] { done_at = b.now(); }, Failed{}); });
  EXPECT_TRUE(near_rel(done_at, 0.050, 1e-6));
  for (const char* name : {"snic0_down", "pcie1_h2d"})
    EXPECT_TRUE(near_rel(link_named(b.links(), name).bytes(), 1 * GB, 1e-9)) << name;
  for (const char* name : {"dram0", "cnic1_wr", "cnic1_rd", "pcie0_h2d"})
    EXPECT_EQ(link_named(b.links(), name).bytes(), 0) << name;
}

DUALPATH_BOTH_ENGINES(SimStorage);

}  // namespace
}  // namespace dualpath::sim::test
