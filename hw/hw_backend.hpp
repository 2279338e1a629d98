// The hardware body of dualpath: a real-time Backend. now() is a monotonic clock; storage reads and writes move
// real Full Block files through BlockStore (io_uring / pread pool, per-node SNIC pacing); transfers move real
// bytes between registered host regions through a Transport (UCX RMA, or a memcpy stand-in that says so);
// compute is EMULATED: a timer of the cost model's predicted seconds (no GPU is used).
//
// Threads: the thread that calls run() drives the core and runs every callback (EventLoop); the storage engine
// and each transport have their own worker threads, whose completions are posted to the loop.
//
// Blocks. Every storage call names the Full Blocks it moves (core BlockRange); each block is one file keyed by
// (agent, block index), so a read fetches exactly the files the agent's earlier rounds wrote.
//
// Transfers. Each emulated memory (GPU g's HBM, GPU g's DRAM buffer share) is a registered host region of
// `staging_bytes`; a transfer of more bytes than that moves the region's bytes repeatedly (chunks of at most
// `chunk_bytes`, `chunks_in_flight` at a time), so the bytes really cross the transport without allocating the
// modelled capacities.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "hw/block_store.hpp"
#include "hw/event_loop.hpp"
#include "hw/transport.hpp"

namespace dualpath::hw {

struct HwOptions {
  std::string storage_dir;         // block files go here (created; emptied of old block files at start)
  double snic_rate = 0;            // bytes/s per node SNIC, reads and writes each (0 = the topology's snic_bw)
  bool io_uring = true;            // false: pread/pwrite thread pool
  bool direct = true;              // O_DIRECT where the file system allows it
  int verify_every = 1;            // verify the checksum of every k-th block read (0 = never)
  std::string transport = "ucx";   // "ucx" | "memcpy"
  std::string ucx_tls = "posix,self";  // used when UCX_TLS is not set in the environment
  size_t staging_bytes = 8u << 20; // per emulated memory region
  size_t chunk_bytes = 4u << 20;   // largest single RMA operation
  int chunks_in_flight = 2;        // per transfer
  // Fault injection for tests: "missing-block" deletes the first block file right after it is written, so the
  // first read that touches it fails (the run must stop with a clear error, not lose the request silently).
  std::string fault;
};

struct HwStats {
  uint64_t storage_reads = 0, storage_writes = 0, transfers = 0, computes = 0, timers = 0;
  double requested_read_bytes = 0, requested_write_bytes = 0, transferred_bytes = 0;
  double emulated_compute_seconds = 0;
  std::vector<double> node_read_bytes, node_write_bytes;  // requested bytes per node
};

class HwBackend final : public Backend {
 public:
  HwBackend(const Scenario& scenario, const HwOptions& options);
  ~HwBackend() override;

  double now() const override { return loop_.now(); }
  using Backend::storage_read;
  using Backend::storage_write;
  void storage_read(int node, const BlockRanges& blocks, double bytes, Done done) override;
  void storage_write(int node, const BlockRanges& blocks, double bytes, Done done) override;
  void transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) override;
  void compute(int gpu, const ComputeWork& work, Done done) override;
  void timer(double delay, Done done) override;

  // Resets the clock to 0, calls `start`, and runs callbacks until no work is left. Returns false if a storage or
  // transport error stopped the run (errors() says what failed).
  bool run(const Done& start);

  const std::vector<std::string>& errors() const { return errors_; }
  const HwStats& stats() const { return stats_; }
  BlockStoreStats storage_stats() const { return store_->stats(); }
  std::string storage_engine() const { return store_->engine(); }
  std::string kv_transport() const { return kv_->name(); }
  std::string model_transport() const { return model_->name(); }
  bool transport_fallback() const { return kv_->is_fallback() || model_->is_fallback(); }
  double snic_rate() const { return snic_rate_; }
  size_t block_bytes() const { return block_bytes_; }

 private:
  void fail(const std::string& what);
  std::vector<BlockKey> keys_of(const BlockRanges& blocks, double bytes, const char* what) const;
  int region(Place p) const { return 2 * p.gpu + (p.loc == Loc::Hbm ? 0 : 1); }

  EventLoop loop_;
  int nodes_, gpus_;
  double snic_rate_;
  size_t block_bytes_;
  HwOptions opt_;
  std::unique_ptr<BlockStore> store_;
  std::unique_ptr<Transport> kv_, model_;
  std::vector<char*> memory_;  // 2 regions per GPU: [HBM, DRAM]
  bool fault_done_ = false;
  HwStats stats_;
  std::vector<std::string> errors_;
};

}  // namespace dualpath::hw
