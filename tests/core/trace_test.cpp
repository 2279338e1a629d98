#include <gtest/gtest.h>

#include "core/workload/trace.hpp"

using dualpath::Trajectory;

TEST(Trajectory, ContextIsSumOfEarlierAppendsAndGenerations) {
  Trajectory t;
  t.rounds = {{100, 10, 0}, {50, 5, 0}, {20, 2, 0}};
  EXPECT_EQ(t.context_before(0), 0);
  EXPECT_EQ(t.context_before(1), 110);
  EXPECT_EQ(t.context_before(2), 165);
  EXPECT_EQ(t.total_tokens(), 187);
}
