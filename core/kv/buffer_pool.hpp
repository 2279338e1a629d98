// Capacity accounting of one memory pool (a node's DRAM buffer or a GPU's free HBM).
// Reservations that do not fit are refused, never dropped: the caller keeps the request waiting.
#pragma once

#include <algorithm>

namespace dualpath {

class BufferPool {
 public:
  BufferPool() = default;
  explicit BufferPool(double capacity) : capacity_(capacity) {}

  double capacity() const { return capacity_; }
  double used() const { return used_; }
  double free() const { return capacity_ - used_; }
  double peak() const { return peak_; }
  bool fits(double bytes) const { return used_ + bytes <= capacity_ * (1 + 1e-12); }

  bool try_reserve(double bytes) {
    if (!fits(bytes)) return false;
    used_ += bytes;
    peak_ = std::max(peak_, used_);
    return true;
  }
  void release(double bytes) { used_ = std::max(0.0, used_ - bytes); }

  // Time-weighted occupancy: call touch(now) before a change made at `now`; mean_used(end) is the mean of
  // used() over [0, end) (the "what binds" report's buffer and HBM occupancy).
  void touch(double now) {
    if (now > last_touch_) integral_ += used_ * (now - last_touch_), last_touch_ = now;
  }
  double mean_used(double end) const {
    const double total = integral_ + (end > last_touch_ ? used_ * (end - last_touch_) : 0.0);
    return end > 0 ? total / end : 0.0;
  }

 private:
  double capacity_ = 0;
  double used_ = 0;
  double peak_ = 0;
  double integral_ = 0;     // byte-seconds of use up to last_touch_
  double last_touch_ = 0;
};

}  // namespace dualpath
