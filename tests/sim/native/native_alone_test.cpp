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
