// The real-time event loop that drives the core in hw/: a monotonic clock, timers, and a thread-safe completion
// queue. Worker threads (storage, transport) post completions; the thread that calls run() executes every
// callback, in order, so the single-threaded core is never entered concurrently.
//
// Ordering: callbacks posted with post() run in posting order; callbacks posted with post_at()/timers run when
// their deadline passes, ties in posting order. run() returns when no work is pending (every started operation
// has delivered its completion and no timer is left) or when fail() was called.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <string>
#include <vector>

namespace dualpath::hw {

using Callback = std::function<void()>;

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;

  EventLoop();
  // Seconds since construction (or since the last reset_clock()).
  double now() const;
  void reset_clock();
  // The loop time of a steady_clock instant.
  double seconds_at(Clock::time_point t) const { return std::chrono::duration<double>(t - t0_).count(); }

  // Counts one operation that a worker will complete with post()/post_at(); run() waits for it.
  void begin_op();
  // Thread-safe: run `cb` on the loop thread as soon as possible and end one operation begun with begin_op().
  void post(Callback cb);
  // Thread-safe: run `cb` on the loop thread once now() >= t, ending one operation begun with begin_op().
  void post_at(double t, Callback cb);
  // Loop thread: run `cb` after `delay` seconds (a timer; counted as pending work).
  void timer(double delay, Callback cb);

  // Runs `start` on this thread, then callbacks until nothing is pending or fail() is called.
  void run(const Callback& start);
  // Loop thread: also call `poll` on every turn of run() and at least every `interval` seconds (for sources that
  // cannot wake the loop, such as MPI messages; the poll may post() or fail()). Set before run().
  void set_poller(Callback poll, double interval);
  // Thread-safe: stop the loop; the first message is kept.
  void fail(const std::string& message);
  bool failed() const;
  std::string failure() const;

  uint64_t callbacks_run() const { return callbacks_; }
  int64_t pending() const;

 private:
  struct Item {
    double t;
    uint64_t seq;
    Callback cb;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.t != b.t ? a.t > b.t : a.seq > b.seq; }
  };
  void push_locked(double t, Callback cb);

  Clock::time_point t0_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Item, std::vector<Item>, Later> heap_;  // deadlines (post() uses -inf: run first)
  uint64_t seq_ = 0;
  int64_t ops_ = 0;  // begun operations whose completion is not yet queued
  std::string failure_;
  bool failed_ = false;
  uint64_t callbacks_ = 0;
  Callback poll_;
  double poll_interval_ = 0;
};

}  // namespace dualpath::hw
