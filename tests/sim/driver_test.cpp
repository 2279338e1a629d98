// The driver loop: timers and compute fire on time, same-time callbacks run in start order, zero-byte
// transfers complete asynchronously, errors and the time limit stop the run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/simgrid/simgrid_backend.hpp"
#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimDriver : public EngineTest {};

TEST_P(SimDriver, TimersAndComputeFireAtTheirTimes) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double t1 = -1, t2 = -1, c = -1, chained = -1;
  b.run([&] {
    b.timer(0.5, [&] { t1 = b.now(); });
    b.timer(1.25, [&] {
      t2 = b.now();
      b.timer(0.25, [&] { chained = b.now(); });
    });
    ComputeWork w;
    w.seconds = 0.003;
    b.compute(3, w, [&] { c = b.now(); });
  });
  EXPECT_DOUBLE_EQ(t1, 0.5);
  EXPECT_DOUBLE_EQ(t2, 1.25);
  EXPECT_DOUBLE_EQ(c, 0.003);
  EXPECT_DOUBLE_EQ(chained, 1.5);
  EXPECT_EQ(b.stats().timers, 4u);
}

TEST_P(SimDriver, TimersRunWhileTransfersAreInFlight) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double tick = -1, read = -1;
  b.run([&] {
    b.storage_read(0, 1e9, [&] { read = b.now(); });
    b.timer(0.005, [&] { tick = b.now(); });
  });
  EXPECT_NEAR(tick, 0.005, 1e-12);
  EXPECT_TRUE(near_rel(read, 0.020, 1e-6));
}

TEST_P(SimDriver, SameTimeCallbacksRunInStartOrder) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  std::string order;
  b.run([&] {
    // Two equal transfers on separate nodes finish at the same instant as a timer and a compute.
    b.timer(0.020, [&] { order += 'a'; });
    b.storage_read(1, 1e9, [&] { order += 'b'; });
    ComputeWork w20;
    w20.seconds = 0.020;
    b.compute(0, w20, [&] { order += 'c'; });
    b.storage_read(0, 1e9, [&] { order += 'd'; });
    b.transfer(Hop::H2D, {Loc::Dram, 0}, {Loc::Hbm, 0}, 0, TrafficClass::Kv, [&] { order += 'z'; });
  });
  EXPECT_EQ(order, "zabcd");
}

TEST_P(SimDriver, ZeroByteTransferCompletesAfterTheCallReturns) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  bool returned = false, done_after_return = false;
  double at = -1;
  b.run([&] {
    b.timer(0.25, [&] {
      b.storage_read(0, 0, [&] {
        done_after_return = returned;
        at = b.now();
      });
      returned = true;
    });
  });
  EXPECT_TRUE(done_after_return);
  EXPECT_DOUBLE_EQ(at, 0.25);
}

TEST_P(SimDriver, CallbackExceptionStopsTheRunAndIsRethrown) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  bool later_ran = false;
  EXPECT_THROW(b.run([&] {
    b.storage_read(0, 1e9, [&] { later_ran = true; });
    b.timer(0.001, [] { throw std::runtime_error("core bug"); });
  }),
               std::runtime_error);
  EXPECT_FALSE(later_ran);
}

TEST_P(SimDriver, TimeLimitDropsPendingWork) {
  SimSpec spec;
  spec.time_limit = 0.010;
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), spec);
  Simulator& b = *bp;
  bool read_done = false, early = false;
  b.run([&] {
    b.storage_read(0, 1e9, [&] { read_done = true; });  // needs 20 ms
    b.timer(0.010, [&] { early = true; });               // exactly at the limit: still runs
  });
  EXPECT_TRUE(early);
  EXPECT_FALSE(read_done);
  EXPECT_TRUE(b.hit_time_limit());
  EXPECT_NEAR(b.links().end_time, 0.010, 1e-9);
  // Half the gigabyte crossed the SNIC before the limit.
  EXPECT_TRUE(near_rel(link_named(b.links(), "snic0_down").bytes(), 0.5e9, 1e-6));
}

TEST_P(SimDriver, WorkOutsideRunIsRejected) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  EXPECT_THROW(b.timer(1, [] {}), std::logic_error);
  EXPECT_THROW(b.storage_read(0, 1, [] {}), std::logic_error);
}

TEST_P(SimDriver, InvalidTopologyIsRejectedBeforeSimGridStarts) {
  Topology t = small_topology();
  t.snic_bw = 0;
  EXPECT_THROW(make(t, deployment(1, 1), qos_on(), SimSpec{}), std::invalid_argument);
  // The engine was not consumed: a valid backend can still be built in this process.
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double at = -1;
  b.run([&] { b.timer(0.5, [&] { at = b.now(); }); });
  EXPECT_DOUBLE_EQ(at, 0.5);
}

// SimGrid's engine is a singleton; the native engine has no such limit.
TEST(SimDriverSimGrid, SecondBackendInOneProcessIsRejected) {
  SimgridBackend b(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  EXPECT_THROW(SimgridBackend(small_topology(), deployment(1, 1), qos_on(), SimSpec{}), std::logic_error);
}

TEST(SimDriverNative, ManyBackendsInOneProcess) {
  for (int i = 0; i < 3; ++i) {
    auto b = make_simulator(NetworkEngine::Native, small_topology(), deployment(1, 1), qos_on(), SimSpec{});
    double at = -1;
    b->run([&] { b->storage_read(0, 1e9, [&] { at = b->now(); }); });
    EXPECT_TRUE(near_rel(at, 0.020, 1e-9)) << at;
  }
}

DUALPATH_BOTH_ENGINES(SimDriver);

}  // namespace
}  // namespace dualpath::sim::test
