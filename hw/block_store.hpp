// KV block storage for hw/: one file per Full Block under a directory, written and read through io_uring
// (O_DIRECT where the file system allows it, 4 KiB-aligned buffers) or, when io_uring is unavailable (seccomp,
// old kernel) or not wanted, a pread/pwrite thread pool. A per-node token bucket paces each node's reads and
// writes to its emulated storage NIC (SNIC) rate, so several emulated nodes on one machine each get their own.
//
// File layout: a 64-byte header (magic, key, payload length, checksum of the payload) then the payload, padded
// with zeros to a multiple of 4 KiB. The payload is a deterministic pattern derived from the key, so a read can
// check that it got the right block, whole and uncorrupted (the checksum is verified on every k-th block read).
//
// Completions run on a worker thread; callers (HwBackend) hand them to the event loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dualpath::hw {

struct BlockKey {
  uint64_t stream = 0;  // whose sequence it belongs to (HwBackend: the content stream, core/kv/block_index.hpp)
  uint32_t index = 0;   // Full Block index within the sequence
};

struct BlockStoreOptions {
  std::string dir;                // created if missing
  size_t block_bytes = 0;         // payload bytes of one Full Block
  int nodes = 1;                  // emulated nodes (one token bucket per node and direction)
  double read_rate = 0;           // bytes/s per node for reads (0 = unlimited)
  double write_rate = 0;          // bytes/s per node for writes (0 = unlimited)
  bool io_uring = true;           // false: pread/pwrite thread pool
  bool direct = true;             // try O_DIRECT (falls back to buffered I/O where the file system refuses)
  int queue_depth = 16;           // io_uring operations in flight
  int pool_threads = 2;           // pread/pwrite pool size
  int verify_every = 1;           // verify the checksum of every k-th block read (0 = never)
};

struct BlockStoreStats {
  uint64_t blocks_read = 0, blocks_written = 0, blocks_verified = 0;
  uint64_t bytes_read = 0, bytes_written = 0;  // file bytes moved (header and padding included)
  uint64_t errors = 0;
};

class BlockStore {
 public:
  using Clock = std::chrono::steady_clock;
  // `error` is empty on success; `deliver_at` is when the paced SNIC would have moved the last byte (the caller
  // delivers the completion no earlier than that).
  using Completion = std::function<void(const std::string& error, Clock::time_point deliver_at)>;

  explicit BlockStore(BlockStoreOptions options);
  ~BlockStore();
  BlockStore(const BlockStore&) = delete;
  BlockStore& operator=(const BlockStore&) = delete;

  // Writes blocks keys[i] with payloads of `block_bytes` (the last one `last_payload` if non-zero).
  void write_blocks(int node, std::vector<BlockKey> keys, size_t last_payload, Completion done);
  void read_blocks(int node, std::vector<BlockKey> keys, Completion done);

  // Blocking helpers (tests, calibration).
  std::string write_sync(int node, const std::vector<BlockKey>& keys, size_t last_payload = 0);
  std::string read_sync(int node, const std::vector<BlockKey>& keys);

  std::string path_of(BlockKey key) const;
  size_t file_bytes(size_t payload) const;  // header + payload, padded to 4 KiB
  const BlockStoreOptions& options() const { return opt_; }
  std::string engine() const;              // e.g. "io_uring, O_DIRECT" or "pread pool (io_uring: EPERM)"
  BlockStoreStats stats() const;

  // The payload pattern and its checksum (exposed for tests).
  static void fill_payload(BlockKey key, char* out, size_t n);
  static uint64_t checksum(const char* data, size_t n);

  struct Impl;

 private:
  BlockStoreOptions opt_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dualpath::hw
