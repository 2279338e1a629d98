#include "sim/meter_feed.hpp"

#include <utility>

namespace dualpath::sim {

MeterFeed::MeterFeed(LinkMeter& meter, int threads, size_t batch)
    : meter_(meter), batch_(batch > 0 ? batch : 1), want_thread_(threads >= 2) {}

MeterFeed::~MeterFeed() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard lk(mu_);
    full_.clear();
    stopping_ = true;
  }
  work_ready_.notify_one();
  worker_.join();
}

void MeterFeed::start() {
  if (!want_thread_ || worker_.joinable()) return;  // a running worker is joinable until drain() joins it
  cur_.reserve(batch_);
  for (size_t i = 1; i < kBatches; ++i) free_.emplace_back().reserve(batch_);
  threaded_ = true;
  worker_ = std::thread([this] { work(); });
}

void MeterFeed::push_advance() {
  Op& op = next_op();
  op.value = clock_;
  op.n = 0;
  sent_clock_ = clock_;
}

void MeterFeed::hand_over(bool refill) {
  {
    std::lock_guard lk(mu_);
    full_.push_back(std::move(cur_));
  }
  work_ready_.notify_one();
  cur_ = Batch();
  if (!refill) return;
  std::unique_lock lk(mu_);
  batch_free_.wait(lk, [this] { return !free_.empty(); });
  cur_ = std::move(free_.back());
  free_.pop_back();
}

void MeterFeed::work() {
  while (true) {
    Batch b;
    {
      std::unique_lock lk(mu_);
      work_ready_.wait(lk, [this] { return !full_.empty() || stopping_; });
      if (full_.empty()) return;  // stopping, and everything queued is applied
      b = std::move(full_.front());
      full_.pop_front();
    }
    if (!error_) {
      try {
        for (const Op& op : b) {
          if (op.n == 0) {
            meter_.advance_to(op.value);
            continue;
          }
          for (int k = 0; k < op.n; ++k) meter_.change_rate(op.links[static_cast<size_t>(k)], op.cls, op.value, op.flows);
        }
      } catch (...) {
        error_ = std::current_exception();  // the sink failed: later batches are only emptied
      }
    }
    b.clear();
    {
      std::lock_guard lk(mu_);
      free_.push_back(std::move(b));
    }
    batch_free_.notify_one();
  }
}

void MeterFeed::drain(bool rethrow) {
  if (!threaded_) return;
  if (clock_ != sent_clock_) push_advance();
  if (!cur_.empty()) hand_over(false);
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  work_ready_.notify_one();
  worker_.join();
  threaded_ = false;
  if (error_ && rethrow) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace dualpath::sim
