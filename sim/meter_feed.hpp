// The link meter's held-rate calls (link_meter.hpp), applied on the spot or by a worker thread (`--threads 2`).
//
// Why a thread: the meter integrates every link a flow crosses each time the flow's rate changes (a read-modify-write
// of three per-link arrays, scattered over the fabric), so on DS 660B 2P4D it is a tenth or more of the run; nothing
// the simulation decides depends on it. With a worker, the simulation thread only appends each call to a batch
// (one record per flow: its links, class, rate change and flow count) and the worker applies the batches in order.
//
// Why the results are byte-identical to one thread: the worker makes the same LinkMeter calls, with the same
// arguments, in the same order, so every floating-point operation is the same. One difference, exact too: the
// clock is sent only before a rate change that follows it (or at drain()), not after every solver step, and
// LinkMeter::advance_to(t1) then advance_to(t2) with no change between does what advance_to(t2) alone does (it
// closes the same intervals, each at its own boundary). links.csv rows go to the meter's sink from the worker,
// in interval order as before; the sink must not be touched by the simulation thread until drain() returns.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/backend/backend.hpp"
#include "sim/fabric.hpp"
#include "sim/link_meter.hpp"

namespace dualpath::sim {

class MeterFeed {
 public:
  static constexpr int kMaxLinks = Route::kMaxLinks;  // links per call: a flow's fabric route
  // The batches in flight: the simulation thread waits for the worker only when this many are queued.
  static constexpr size_t kBatches = 4;

  // threads 1: every call goes straight to `meter`; 2 or more: start() starts a worker that applies them (one
  // worker: the meter is one sequential integration). `batch` records per hand-over (tests use small ones).
  MeterFeed(LinkMeter& meter, int threads, size_t batch = 4096);
  ~MeterFeed();  // stops the worker, dropping what is still queued (after an error: drain() is the normal end)
  MeterFeed(const MeterFeed&) = delete;
  MeterFeed& operator=(const MeterFeed&) = delete;

  // Starts the worker (threads >= 2; nothing otherwise). The meter's sink must be set before.
  void start();
  bool threaded() const { return threaded_; }

  // LinkMeter::advance_to.
  void advance_to(double now) {
    if (!threaded_) meter_.advance_to(now);
    else clock_ = now;
  }
  // LinkMeter::change_rate(links[k], cls, delta, flows) for k in [0, n), in that order (1 <= n <= kMaxLinks).
  void change_rate(const int32_t* links, int n, TrafficClass cls, double delta, int flows) {
    if (!threaded_) {
      for (int k = 0; k < n; ++k) meter_.change_rate(links[k], cls, delta, flows);
      return;
    }
    if (clock_ != sent_clock_) push_advance();
    Op& op = next_op();
    for (int k = 0; k < n; ++k) op.links[static_cast<size_t>(k)] = links[k];
    op.value = delta;
    op.n = static_cast<int8_t>(n);
    op.cls = cls;
    op.flows = static_cast<int8_t>(flows);
  }

  // Every call so far applied (the meter then at the last advance_to's clock) and the worker stopped: the meter
  // may be used directly again. Rethrows what the worker threw (the sink's I/O error), unless `rethrow` is false
  // (the run is already failing with an error of its own). Calls after drain() go straight to the meter.
  void drain(bool rethrow = true);

 private:
  struct Op {
    double value = 0;  // n == 0: advance_to(value); else the rate change
    std::array<int32_t, kMaxLinks> links{};
    int8_t n = 0;
    TrafficClass cls{};
    int8_t flows = 0;
  };
  using Batch = std::vector<Op>;
  Op& next_op() {
    if (cur_.size() == batch_) hand_over(true);
    return cur_.emplace_back();
  }
  void push_advance();
  // The current batch to the worker, then (`refill`) an empty one back, waiting while kBatches are queued.
  void hand_over(bool refill);
  void work();

  LinkMeter& meter_;
  size_t batch_;
  bool want_thread_;
  bool threaded_ = false;
  double clock_ = 0;       // the simulation's meter clock
  double sent_clock_ = 0;  // the clock the worker's meter was last sent
  Batch cur_;              // being filled by the simulation thread

  std::mutex mu_;
  std::condition_variable work_ready_, batch_free_;
  std::deque<Batch> full_;   // for the worker, in order
  std::vector<Batch> free_;  // emptied by the worker
  bool stopping_ = false;
  std::exception_ptr error_;  // the worker's first (it then only empties batches); read after the join
  std::thread worker_;
};

}  // namespace dualpath::sim
