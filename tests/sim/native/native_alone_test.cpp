// The native engine on its own: this executable links dualpath_sim_native and not SimGrid (tests/CMakeLists.txt),
// so a closed-form run here shows the engine builds and runs without it. The cases are the ones the engine of
// record is held to in tests/sim/ (there, against SimGrid too).
#include <gtest/gtest.h>

#include <vector>

#include "sim/native/native_backend.hpp"
#include "../sim_fixture.hpp"

using namespace dualpath;
using namespace dualpath::sim;
using namespace dualpath::sim::test;  // the small cluster of tests/sim/ (2 GPUs per node, 50 GB/s NICs)

namespace {
constexpr double GB = 1e9;
}  // namespace

TEST(NativeAlone, OneGigabyteOverA50GBpsSnicTakes20ms) {
  NativeBackend b(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  double done_at = -1;
  b.run([&] { b.storage_read(0, 1 * GB, [&] { done_at = b.now(); }); });
  EXPECT_NEAR(done_at, 0.020, 1e-12);
}

TEST(NativeAlone, TwoReadsShareTheSnicAndEndTogether) {
  NativeBackend b(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  std::vector<double> done;
  b.run([&] {
    for (int i = 0; i < 2; ++i) b.storage_read(0, 1 * GB, [&] { done.push_back(b.now()); });
  });
  ASSERT_EQ(done.size(), 2u);
  EXPECT_NEAR(done[0], 0.040, 1e-12);
  EXPECT_NEAR(done[1], 0.040, 1e-12);
}

// QoS 99:1 on a shared CNIC: the model flow gets 99% (1 GB at 49.5 GB/s), the KV flow the rest and then all of
// it (work-conserving: both together take 2 GB / 50 GB/s).
TEST(NativeAlone, ModelTrafficGets99PercentAndKvFinishesWorkConserving) {
  NativeBackend b(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  double model = -1, kv = -1;
  b.run([&] {
    b.transfer(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 2}, 1 * GB, TrafficClass::Model, [&] { model = b.now(); });
    b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, 0}, {Loc::Dram, 3}, 1 * GB, TrafficClass::Kv, [&] { kv = b.now(); });
  });
  EXPECT_NEAR(model, 1 * GB / 49.5e9, 1e-9);
  EXPECT_NEAR(kv, 2 * GB / 50e9, 1e-9);
}

// The event census (SimStats, perf.json's "census"): reads of 1 and 2 GB share node 0's SNIC (25 GB/s each), a
// 3 GB read runs alone on node 1's. t = 0: one solve of all three. 40 ms: the 1 GB read ends and its partner is
// re-solved alone (50 GB/s). 60 ms: the 2 GB read (1 GB left at 40 ms) and the 3 GB read end in the same step,
// leaving nothing to re-solve. 70 ms: a timer, a step that completes no flow.
TEST(NativeAlone, EventCensusCountsStepsSolvesAndCompletions) {
  NativeBackend b(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  b.run([&] {
    b.storage_read(0, 1 * GB, [] {});
    b.storage_read(0, 2 * GB, [] {});
    b.storage_read(1, 3 * GB, [] {});
    b.timer(0.070, [] {});
  });
  const SimStats& s = b.stats();
  EXPECT_EQ(s.completions, 3u);
  EXPECT_EQ(s.solver_steps, 3u);  // 40 ms, 60 ms, 70 ms
  EXPECT_EQ(s.idle_steps, 1u);    // 70 ms: the timer alone
  EXPECT_EQ(s.solves, 2u);        // t = 0 (three flows), 40 ms (the 2 GB read)
  EXPECT_EQ(s.resolved_flows, 4u);
  EXPECT_EQ(s.max_resolved, 3u);
  EXPECT_NEAR(b.now(), 0.070, 1e-12);
}
