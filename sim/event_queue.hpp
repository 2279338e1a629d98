// The simulated-time event queue both network engines share: timers and transfer completions, run in
// (time, start sequence) order so that callbacks due at the same instant run in the order their work was started
// (identical inputs give identical callback orders and byte-identical outputs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/backend/run_errors.hpp"

namespace dualpath::sim {

// Deadlines within this many seconds of the clock are due. SimGrid's own time precision is 1e-9 s, and the
// clock reached through a timeout can differ from the requested date by rounding.
inline constexpr double kTimeEps = 1e-9;

class EventQueue {
 public:
  // A fresh start sequence number: the tie-break of events due at the same time.
  uint64_t next_seq() { return next_seq_++; }
  void push(double time, uint64_t seq, Done done) {
    heap_.push_back(Event{time, seq, std::move(done)});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  bool empty() const { return heap_.empty(); }
  double next_time() const { return heap_.front().time; }
  void clear() { heap_.clear(); }

  // Guards against callbacks re-arming zero-delay work forever: callbacks run without the clock advancing. The
  // busiest real instant (t = 0 of the paper's 48P96D run, every agent's first round) runs far fewer.
  static constexpr uint64_t kMaxCallbacksAtOneInstant = 100'000'000;
  explicit EventQueue(uint64_t max_at_one_instant = kMaxCallbacksAtOneInstant) : max_at_instant_(max_at_one_instant) {}

  // Runs every event due at `now` in (time, seq) order, including ones the callbacks add for the same instant,
  // and returns how many ran. Throws NoProgressError (exit 1) when callbacks keep adding zero-time work at one
  // instant: checked as they run, since such work never lets this loop end (issue 15).
  uint64_t run_due(double now) {
    if (now != instant_) instant_ = now, at_instant_ = 0;
    uint64_t ran = 0;
    while (!heap_.empty() && heap_.front().time <= now + kTimeEps) {
      if (++at_instant_ > max_at_instant_) {
        throw NoProgressError("simulated time stopped at " + std::to_string(now) + " s while more than " +
                              std::to_string(max_at_instant_) +
                              " callbacks ran without it advancing: work keeps re-arming itself with no delay; "
                              "the run cannot progress");
      }
      std::pop_heap(heap_.begin(), heap_.end(), later);
      Done done = std::move(heap_.back().done);
      heap_.pop_back();
      ++ran;
      done();
    }
    return ran;
  }

 private:
  uint64_t max_at_instant_;
  struct Event {
    double time;
    uint64_t seq;
    Done done;
  };
  // Min-heap order on (time, seq); a function object so that the heap algorithms inline it.
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      return a.time > b.time || (a.time == b.time && a.seq > b.seq);
    }
  };
  static constexpr Later later{};
  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
  double instant_ = -1;
  uint64_t at_instant_ = 0;
};

}  // namespace dualpath::sim
