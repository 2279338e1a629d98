#include "hw/event_loop.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dualpath::hw {

EventLoop::EventLoop() : t0_(Clock::now()) {}

double EventLoop::now() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

void EventLoop::reset_clock() { t0_ = Clock::now(); }

void EventLoop::begin_op() {
  std::lock_guard lk(mu_);
  ++ops_;
}

void EventLoop::push_locked(double t, Callback cb) { heap_.push(Item{t, seq_++, std::move(cb)}); }

void EventLoop::post(Callback cb) {
  {
    std::lock_guard lk(mu_);
    --ops_;
    push_locked(-std::numeric_limits<double>::infinity(), std::move(cb));
  }
  cv_.notify_one();
}

void EventLoop::post_at(double t, Callback cb) {
  {
    std::lock_guard lk(mu_);
    --ops_;
    push_locked(t, std::move(cb));
  }
  cv_.notify_one();
}

void EventLoop::timer(double delay, Callback cb) {
  if (!(delay >= 0)) throw std::invalid_argument("timer delay must be >= 0");
  const double t = now() + delay;
  std::lock_guard lk(mu_);
  push_locked(t, std::move(cb));
}

void EventLoop::fail(const std::string& message) {
  {
    std::lock_guard lk(mu_);
    if (!failed_) failure_ = message;
    failed_ = true;
  }
  cv_.notify_one();
}

bool EventLoop::failed() const {
  std::lock_guard lk(mu_);
  return failed_;
}

std::string EventLoop::failure() const {
  std::lock_guard lk(mu_);
  return failure_;
}

int64_t EventLoop::pending() const {
  std::lock_guard lk(mu_);
  return ops_ + static_cast<int64_t>(heap_.size());
}

void EventLoop::set_poller(Callback poll, double interval) {
  poll_ = std::move(poll);
  poll_interval_ = interval;
}

void EventLoop::run(const Callback& start) {
  start();
  std::unique_lock lk(mu_);
  while (!failed_ && (ops_ > 0 || !heap_.empty())) {
    if (poll_) {
      lk.unlock();
      poll_();
      lk.lock();
      if (failed_) break;
    }
    const double n = now();
    if (heap_.empty() || heap_.top().t > n) {
      // Sleep until the next deadline or a post; with a poller, no longer than its interval.
      double wait = heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.top().t - n;
      if (poll_) wait = std::min(wait, poll_interval_);
      if (wait == std::numeric_limits<double>::infinity()) cv_.wait(lk);
      else cv_.wait_for(lk, std::chrono::duration<double>(wait));
      continue;
    }
    Callback cb = std::move(const_cast<Item&>(heap_.top()).cb);
    heap_.pop();
    lk.unlock();
    cb();  // may start more work (timer() takes the lock itself)
    ++callbacks_;
    lk.lock();
  }
}

}  // namespace dualpath::hw
