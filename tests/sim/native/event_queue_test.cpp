// The event queue's no-progress watchdog (issue 15): work that re-arms itself at the same instant must stop the run
// with NoProgressError (exit 1) while it spins, not after: such work never lets run_due return.
#include <gtest/gtest.h>

#include <functional>

#include "sim/event_queue.hpp"

using dualpath::NoProgressError;
using dualpath::sim::EventQueue;

TEST(EventQueue, ZeroDelayLoopStopsTheRunWhileItSpins) {
  EventQueue q(1000);
  int runs = 0;
  std::function<void()> again = [&] {
    ++runs;
    q.push(5.0, q.next_seq(), again);  // due at the same instant, forever
  };
  q.push(5.0, q.next_seq(), again);
  EXPECT_THROW(q.run_due(5.0), NoProgressError);
  EXPECT_EQ(runs, 1000);
}

TEST(EventQueue, BusyInstantsBelowTheLimitRunInStartOrderAndTheCountRestartsWhenTimeMoves) {
  EventQueue q(1000);
  std::vector<int> order;
  for (int i = 0; i < 1000; ++i) q.push(1.0, q.next_seq(), [&order, i] { order.push_back(i); });
  EXPECT_EQ(q.run_due(1.0), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(order[static_cast<size_t>(i)], i);
  for (int i = 0; i < 1000; ++i) q.push(2.0, q.next_seq(), [] {});
  EXPECT_EQ(q.run_due(2.0), 1000u);  // a new instant: the count starts again
  EXPECT_TRUE(q.empty());
}
