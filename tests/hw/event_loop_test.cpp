// EventLoop: callbacks on the driving thread, in order; timers by deadline; run() ends when no work is left.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "hw/event_loop.hpp"

namespace dualpath::hw {
namespace {

TEST(HwEventLoop, WorkerCompletionsRunOnTheLoopThreadInOrder) {
  EventLoop loop;
  std::vector<int> seen;
  std::thread::id loop_thread = std::this_thread::get_id(), other;
  std::thread worker;
  loop.run([&] {
    for (int i = 0; i < 3; ++i) loop.begin_op();
    worker = std::thread([&] {
      for (int i = 0; i < 3; ++i)
        loop.post([&, i] {
          seen.push_back(i);
          other = std::this_thread::get_id();
        });
    });
  });
  worker.join();
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(other, loop_thread);
}

TEST(HwEventLoop, TimersFireByDeadlineAndTheClockIsReal) {
  EventLoop loop;
  std::vector<int> seen;
  double t_late = 0;
  loop.run([&] {
    loop.timer(0.03, [&] {
      seen.push_back(2);
      t_late = loop.now();
    });
    loop.timer(0.01, [&] { seen.push_back(1); });
    loop.timer(0.0, [&] { seen.push_back(0); });
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  EXPECT_GE(t_late, 0.03);
  EXPECT_LT(t_late, 0.5);
}

TEST(HwEventLoop, PostAtWaitsForItsDeadlineAndFailStops) {
  EventLoop loop;
  double at = 0;
  std::thread worker;
  loop.run([&] {
    loop.begin_op();
    worker = std::thread([&] { loop.post_at(loop.now() + 0.02, [&] { at = loop.now(); }); });
  });
  worker.join();
  EXPECT_GE(at, 0.02);
  EventLoop l2;
  bool ran = false;
  l2.run([&] {
    l2.timer(10, [&] { ran = true; });
    l2.fail("storage: boom");
  });
  EXPECT_FALSE(ran);
  EXPECT_TRUE(l2.failed());
  EXPECT_EQ(l2.failure(), "storage: boom");
}

}  // namespace
}  // namespace dualpath::hw
