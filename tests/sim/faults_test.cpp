// Faults in both network engines (issue 19): a SNIC whose bandwidth is scaled mid-transfer and storage I/O failed
// by a fault, against closed forms; and the max-min solver's capacity change against a solve from scratch.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/native/maxmin.hpp"
#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimFaults : public EngineTest {};

constexpr double GB = 1e9;

TEST_P(SimFaults, HalvedSnicMidReadSlowsTheRestOfIt) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.track_storage_io();
    b.storage_read(0, BlockRanges{}, 1 * GB, [&] { done_at = b.now(); }, [](const std::string&) { FAIL(); });
    // At 10 ms half of the 1 GB is read at 50 GB/s; the other half then takes 0.5 GB / 25 GB/s = 20 ms.
    b.timer(0.010, [&] { b.scale_snic(0, 0.5); });
  });
  EXPECT_NEAR(done_at, 0.030, 1e-9);
  EXPECT_TRUE(near_rel(link_named(b.links(), "snic0_down").bytes(), 1 * GB, 1e-9));
}

TEST_P(SimFaults, RestoredSnicGivesBackItsBandwidthAndOtherNodesAreUntouched) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double a = -1, c = -1;
  b.run([&] {
    b.track_storage_io();
    b.storage_read(0, BlockRanges{}, 1 * GB, [&] { a = b.now(); }, [](const std::string&) { FAIL(); });
    b.storage_read(1, BlockRanges{}, 1 * GB, [&] { c = b.now(); }, [](const std::string&) { FAIL(); });
    b.scale_snic(0, 0.25);                        // 12.5 GB/s for 40 ms: 0.5 GB
    b.timer(0.040, [&] { b.scale_snic(0, 1.0); });  // then 0.5 GB at 50 GB/s: 10 ms
  });
  EXPECT_NEAR(a, 0.050, 1e-9);
  EXPECT_NEAR(c, 0.020, 1e-9);
}

TEST_P(SimFaults, FailedStorageIoRunsItsFailureOnceAndNeverItsDone) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  int done = 0;
  std::vector<std::string> failures;
  double failed_at = -1, other_done = -1;
  b.run([&] {
    b.track_storage_io();
    b.storage_read(0, BlockRanges{}, 1 * GB, [&] { ++done; }, [&](const std::string& e) {
      failures.push_back(e);
      failed_at = b.now();
    });
    b.storage_write(0, BlockRanges{}, 1 * GB, [&] { ++done; }, [&](const std::string& e) { failures.push_back(e); });
    b.storage_read(1, BlockRanges{}, 1 * GB, [&] { other_done = b.now(); }, [](const std::string&) { FAIL(); });
    b.timer(0.005, [&] { b.fail_storage_io(0, "snic0 down"); });
  });
  EXPECT_EQ(done, 0);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0], "snic0 down");
  EXPECT_NEAR(failed_at, 0.005, 1e-12);
  EXPECT_NEAR(other_done, 0.020, 1e-9);  // node 1's SNIC is not shared with node 0's
  // Only what moved before the fault crossed the SNIC: 5 ms at 50 GB/s each way.
  EXPECT_TRUE(near_rel(link_named(b.links(), "snic0_down").bytes(), 0.25 * GB, 1e-6));
  EXPECT_TRUE(near_rel(link_named(b.links(), "snic0_up").bytes(), 0.25 * GB, 1e-6));
}

TEST_P(SimFaults, StorageDegradeScalesTheServersLinks) {
  Topology t = small_topology();
  t.storage.servers = 1;
  t.storage.server_nic_bw = 40e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double done_at = -1;
  b.run([&] {
    b.track_storage_io();
    b.scale_storage(0.5);  // the server NIC binds at 20 GB/s
    b.storage_read(0, BlockRanges{}, 1 * GB, [&] { done_at = b.now(); }, [](const std::string&) { FAIL(); });
  });
  EXPECT_NEAR(done_at, 0.050, 1e-9);
}

DUALPATH_BOTH_ENGINES(SimFaults);

// A capacity change re-solves to what a solver built with the new capacities gives, including when it moves a
// flow's narrowest link (its bound) and makes a redundant link binding.
TEST(MaxMinFaults, CapacityChangeMatchesASolveFromScratch) {
  const std::vector<std::vector<int32_t>> routes = {{0, 1}, {0, 2}, {1, 2}, {2}, {0, 3}};
  std::vector<double> cap = {10, 6, 8, 20};
  MaxMin live(cap);
  std::vector<int> ids;
  for (const auto& r : routes) ids.push_back(live.add(r.data(), static_cast<int>(r.size()), 1.0));
  live.solve();
  for (const auto& [link, c] : std::vector<std::pair<int, double>>{{0, 3}, {3, 0.5}, {2, 30}, {0, 10}, {1, 1}}) {
    cap[static_cast<size_t>(link)] = c;
    live.set_capacity(link, c);
    live.solve();
    MaxMin fresh(cap);
    std::vector<int> fid;
    for (const auto& r : routes) fid.push_back(fresh.add(r.data(), static_cast<int>(r.size()), 1.0));
    fresh.solve();
    for (size_t f = 0; f < routes.size(); ++f)
      EXPECT_NEAR(live.rate(ids[f]), fresh.rate(fid[f]), 1e-9) << "flow " << f << " after link " << link << " -> " << c;
  }
}

}  // namespace
}  // namespace dualpath::sim::test
