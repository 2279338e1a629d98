// Pieces of the block store's I/O path that have one job each: pacing a node's SNIC direction, and reusing
// aligned I/O buffers (O_DIRECT needs block-aligned memory).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "hw/block_store.hpp"

namespace dualpath::hw {

// One paced SNIC direction of one node: bytes leave at most at `rate`, in reservation order.
struct SnicPacer {
  std::mutex mu;
  BlockStore::Clock::time_point next{};
  // Returns [start, end) of the reservation.
  std::pair<BlockStore::Clock::time_point, BlockStore::Clock::time_point> reserve(double rate, size_t bytes) {
    const auto now = BlockStore::Clock::now();
    if (rate <= 0) return {now, now};
    std::lock_guard lk(mu);
    const auto start = std::max(now, next);
    next = start + std::chrono::duration_cast<BlockStore::Clock::duration>(
                       std::chrono::duration<double>(static_cast<double>(bytes) / rate));
    return {start, next};
  }
};

// Aligned buffers of one size, reused.
class AlignedBuffers {
 public:
  explicit AlignedBuffers(size_t size, size_t align) : size_(size), align_(align) {}
  AlignedBuffers(const AlignedBuffers&) = delete;
  AlignedBuffers& operator=(const AlignedBuffers&) = delete;
  ~AlignedBuffers() {
    for (char* b : free_) std::free(b);
  }
  char* get() {
    {
      std::lock_guard lk(mu_);
      if (!free_.empty()) {
        char* b = free_.back();
        free_.pop_back();
        return b;
      }
    }
    void* p = std::aligned_alloc(align_, size_);
    if (!p) throw std::bad_alloc();
    return static_cast<char*>(p);
  }
  void put(char* b) {
    std::lock_guard lk(mu_);
    free_.push_back(b);
  }

 private:
  size_t size_, align_;
  std::mutex mu_;
  std::vector<char*> free_;
};

}  // namespace dualpath::hw
