// The hardware body of dualpath: a real-time Backend. now() is a monotonic clock; every operation the core starts
// is carried out by the node agent that owns the resource (hw/node_agent.hpp), reached through a NodeLink: in this
// process (single-process mode) or over MPI (one process per node, hw/mpi_nodes.hpp). Storage reads and writes move
// real Full Block files (one per (stream, block), named by the core's BlockRange lists); transfers move real bytes
// through UCX, pulled by the receiving node; compute runs real kernels where a GPU is used, else it waits the cost
// model's predicted seconds (labelled "emulated" in every output).
//
// Threads: the thread that calls run() drives the core and runs every callback (EventLoop).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "hw/event_loop.hpp"
#include "hw/link_log.hpp"
#include "hw/node_link.hpp"

namespace dualpath::hw {

// What the scheduler side asked for (the node agents count what they did; NodeLink::report()).
struct HwStats {
  uint64_t storage_reads = 0, storage_writes = 0, transfers = 0, computes = 0, timers = 0;
  uint64_t failed_reads = 0;  // reads a node agent could not deliver, handed to the core to retry
  double requested_read_bytes = 0, requested_write_bytes = 0, transferred_bytes = 0;
  double predicted_compute_seconds = 0;
};

class HwBackend final : public Backend {
 public:
  // `links` (may be null) records what each completed operation moved, for links.csv.
  HwBackend(const Scenario& scenario, EventLoop& loop, NodeLink& nodes, LinkLog* links = nullptr);

  double now() const override { return loop_.now(); }
  using Backend::storage_read;
  using Backend::storage_write;
  void storage_read(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) override;
  // Real writes do not fail here (an error stops the run), so `failed` is never called.
  void storage_write(int node, const BlockRanges& blocks, double bytes, Done done, Failed) override;
  void transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) override;
  void compute(int gpu, const ComputeWork& work, Done done) override;
  void timer(double delay, Done done) override;

  // Resets the clock to 0, calls `start`, and runs callbacks until no work is left. Returns false if a storage,
  // transport or compute error stopped the run (errors() says what failed).
  bool run(const Done& start);

  const std::vector<std::string>& errors() const { return errors_; }
  const HwStats& stats() const { return stats_; }
  size_t block_bytes() const { return block_bytes_; }

 private:
  void fail(const std::string& what);
  // The node agent's reply: success runs `done`; an error stops the run, naming the operation.
  NodeLink::Reply reply(std::string what, Done done);
  // `done`, preceded by `record(start, end)` of the operation's span when a link log is kept.
  template <typename Record>
  Done metered(Done done, Record record);
  std::vector<BlockKey> keys_of(const BlockRanges& blocks, double bytes, const char* what) const;
  int node_of(int gpu) const { return gpu / gpus_per_node_; }

  EventLoop& loop_;
  NodeLink& nodes_;
  LinkLog* links_;
  int nodes_n_, gpus_, gpus_per_node_;
  size_t block_bytes_;
  HwStats stats_;
  std::vector<std::string> errors_;
};

}  // namespace dualpath::hw
