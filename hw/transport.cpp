#include "hw/transport.hpp"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace dualpath::hw {

namespace {

// Copies on one worker thread, in submission order. Used when UCX is unavailable; says so in its name.
class MemcpyTransport final : public Transport {
 public:
  explicit MemcpyTransport(std::string reason) : reason_(std::move(reason)) {
    worker_ = std::thread([this] { loop(); });
  }
  ~MemcpyTransport() override {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    worker_.join();
  }
  std::string name() const override { return "memcpy (NOT UCX: " + reason_ + ")"; }
  bool is_fallback() const override { return true; }
  int register_region(void* base, size_t len) override {
    std::lock_guard lk(mu_);
    regions_.push_back({static_cast<char*>(base), len});
    return static_cast<int>(regions_.size()) - 1;
  }
  void put(int src, size_t src_off, int dst, size_t dst_off, size_t len, Completion done) override {
    enqueue({src, src_off, dst, dst_off, len, std::move(done)});
  }
  void get(int src, size_t src_off, int dst, size_t dst_off, size_t len, Completion done) override {
    enqueue({src, src_off, dst, dst_off, len, std::move(done)});
  }

 private:
  struct Region {
    char* base;
    size_t len;
  };
  struct Job {
    int src;
    size_t src_off;
    int dst;
    size_t dst_off;
    size_t len;
    Completion done;
  };
  void enqueue(Job j) {
    {
      std::lock_guard lk(mu_);
      jobs_.push_back(std::move(j));
    }
    cv_.notify_one();
  }
  void loop() {
    std::unique_lock lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      Job j = std::move(jobs_.front());
      jobs_.pop_front();
      std::string err;
      if (j.src < 0 || j.dst < 0 || j.src >= static_cast<int>(regions_.size()) ||
          j.dst >= static_cast<int>(regions_.size()))
        err = "memcpy transport: unknown region";
      const Region s = err.empty() ? regions_[j.src] : Region{}, d = err.empty() ? regions_[j.dst] : Region{};
      if (err.empty() && (j.src_off + j.len > s.len || j.dst_off + j.len > d.len))
        err = "memcpy transport: transfer out of the region's bounds";
      lk.unlock();
      if (err.empty()) std::memcpy(d.base + j.dst_off, s.base + j.src_off, j.len);
      j.done(err);
      lk.lock();
    }
  }
  std::string reason_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::vector<Region> regions_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace

std::unique_ptr<Transport> make_memcpy_transport(const std::string& reason) {
  return std::make_unique<MemcpyTransport>(reason);
}

std::unique_ptr<Transport> make_transport(const TransportOptions& options) {
  if (options.kind == TransportKind::Memcpy) return make_memcpy_transport("--transport memcpy was requested");
  try {
    return make_ucx_transport(options);
  } catch (const std::exception& e) {
    return make_memcpy_transport(std::string("UCX failed to initialise: ") + e.what());
  }
}

}  // namespace dualpath::hw
