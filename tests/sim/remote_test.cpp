// Transfers between a prefill GPU (node 0, GPUs 0-1) and a decode GPU (node 1, GPUs 2-3) over the compute
// network: the links each step of the paper's read paths crosses, checked by time and by byte totals.
#include <gtest/gtest.h>

#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimRemote : public EngineTest {};

constexpr double GB = 1e9;

TEST_P(SimRemote, PeHbmToDeBufferUsesPeCnicReadAndDeWritePath) {
  // PE path steps 5-7: PE CNIC reads PE HBM, DE CNIC writes DE DRAM through the DE PCIe. PCIe 30 GB/s binds.
  Topology t = small_topology();
  t.pcie_bw = 30e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, 0}, {Loc::Dram, 2}, 1 * GB, TrafficClass::Kv,
               [&] { done_at = b.now(); });
  });
  EXPECT_TRUE(near_rel(done_at, 1 / 30.0, 1e-6));
  const LinkReport& r = b.links();
  for (const char* name : {"cnic0_rd", "cnic2_wr", "pcie2_d2h", "dram1"})
    EXPECT_TRUE(near_rel(link_named(r, name).bytes(), 1 * GB, 1e-9)) << name;
  for (const char* name : {"cnic0_wr", "cnic2_rd", "pcie0_h2d", "pcie0_d2h", "pcie2_h2d", "dram0"})
    EXPECT_EQ(link_named(r, name).bytes(), 0) << name;
}

TEST_P(SimRemote, DeBufferToPeHbmUsesDeReadPathAndPeCnicWrite) {
  // DE path steps 3-5: DE CNIC reads DE DRAM through the DE PCIe, PE CNIC writes PE HBM. DRAM 25 GB/s binds.
  Topology t = small_topology();
  t.dram_bw = 25e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.transfer(Hop::RemoteDramToHbm, {Loc::Dram, 3}, {Loc::Hbm, 1}, 1 * GB, TrafficClass::Kv,
               [&] { done_at = b.now(); });
  });
  EXPECT_TRUE(near_rel(done_at, 0.040, 1e-6));
  const LinkReport& r = b.links();
  for (const char* name : {"dram1", "pcie3_h2d", "cnic3_rd", "cnic1_wr"})
    EXPECT_TRUE(near_rel(link_named(r, name).bytes(), 1 * GB, 1e-9)) << name;
  for (const char* name : {"cnic1_rd", "cnic3_wr", "pcie1_h2d", "pcie3_d2h", "dram0"})
    EXPECT_EQ(link_named(r, name).bytes(), 0) << name;
}

TEST_P(SimRemote, CollectiveCrossesOnlyTheTwoCnics) {
  Topology t = small_topology();
  t.pcie_bw = 1e9;  // would dominate if the collective touched PCIe
  t.dram_bw = 1e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.transfer(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 3}, 1 * GB, TrafficClass::Model,
               [&] { done_at = b.now(); });
  });
  EXPECT_TRUE(near_rel(done_at, 0.020, 1e-6));
  EXPECT_TRUE(near_rel(link_named(b.links(), "cnic0_rd").bytes_model, 1 * GB, 1e-9));
  EXPECT_TRUE(near_rel(link_named(b.links(), "cnic3_wr").bytes_model, 1 * GB, 1e-9));
  EXPECT_EQ(link_named(b.links(), "cnic0_rd").bytes_kv, 0);
}

TEST_P(SimRemote, DeCnicReadSharedByDePathReadAndDecodeHandoff) {
  // Table row (4)(5): the DE CNIC read side carries DE path step 3 (DE buffer -> PE HBM) and the decode
  // handoff H2D (DE buffer -> DE HBM). Both on GPU 2: 1 GB each at 25 GB/s = 40 ms.
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double a = -1, h = -1;
  b.run([&] {
    b.transfer(Hop::RemoteDramToHbm, {Loc::Dram, 2}, {Loc::Hbm, 0}, 1 * GB, TrafficClass::Kv, [&] { a = b.now(); });
    b.transfer(Hop::H2D, {Loc::Dram, 2}, {Loc::Hbm, 2}, 1 * GB, TrafficClass::Kv, [&] { h = b.now(); });
  });
  EXPECT_TRUE(near_rel(a, 0.040, 1e-6));
  EXPECT_TRUE(near_rel(h, 0.040, 1e-6));
  EXPECT_TRUE(near_rel(link_named(b.links(), "cnic2_rd").bytes(), 2 * GB, 1e-9));
}

TEST_P(SimRemote, RejectsHopsThatContradictTheirPlaces) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  int rejected = 0;
  b.run([&] {
    auto expect_reject = [&](Hop hop, Place s, Place d) {
      try {
        b.transfer(hop, s, d, 1, TrafficClass::Kv, [] {});
      } catch (const std::invalid_argument&) {
        ++rejected;
      }
    };
    expect_reject(Hop::H2D, {Loc::Dram, 0}, {Loc::Hbm, 1});    // different GPUs
    expect_reject(Hop::D2H, {Loc::Dram, 0}, {Loc::Hbm, 0});    // wrong direction
    expect_reject(Hop::Collective, {Loc::Hbm, 0}, {Loc::Dram, 2});
    expect_reject(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 0});  // same memory
    expect_reject(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 4});  // no such GPU
  });
  EXPECT_EQ(rejected, 5);
}

DUALPATH_BOTH_ENGINES(SimRemote);

}  // namespace
}  // namespace dualpath::sim::test
