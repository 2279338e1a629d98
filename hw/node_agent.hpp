// What one node does with its own resources: reads and writes its Full Block files through its SNIC (one
// BlockStore pacing bucket), pulls bytes into its memories over a transport (receiver-initiated one-sided gets),
// and runs its GPUs' compute (real kernels through a compute runner, or an emulated timer of the cost model's
// seconds). The single-process backend (hw_backend) holds one agent per node in one process; in multi-process mode
// (mpi_launch) each node process holds its own and the scheduler process reaches it over MPI. Either way the same
// code moves the bytes. Every reply runs on the loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "hw/block_store.hpp"
#include "hw/event_loop.hpp"
#include "hw/hw_options.hpp"
#include "hw/transport.hpp"

namespace dualpath::hw {

struct NodeAgentOptions {
  size_t staging_bytes = 8u << 20;  // size of every emulated memory region (transfers cycle over it)
  size_t chunk_bytes = 4u << 20;    // largest single RMA operation
  int chunks_in_flight = 2;         // per transfer
  // Fault injection for tests (HwFault): MissingBlock deletes the first block file this agent writes, right after
  // the write completes, so the first read that touches it fails; SnicDown makes node 0's reads fail after its
  // second (a failed storage NIC: the core retries them through the other node). The run's others are not an
  // agent's to inject.
  HwFault fault = HwFault::None;
};

struct NodeAgentStats {
  uint64_t reads = 0, writes = 0, pulls = 0, computes = 0;
  uint64_t blocks_read = 0, blocks_written = 0;
  double pulled_bytes = 0;
  uint64_t gpu_copies = 0;     // pulls done by a GPU copy engine (H2D/D2H)
  double gpu_copy_seconds = 0; // measured by CUDA events
  double emulated_compute_seconds = 0;  // waited on timers (no kernel ran)
  double measured_compute_seconds = 0;  // reported by real kernels
  double predicted_compute_seconds = 0; // the cost model's seconds for all compute, for comparison
};

class NodeAgent {
 public:
  using Reply = std::function<void(const std::string& error)>;  // empty error: success
  // Runs `work` on local GPU `gpu` as real kernels and calls back (on any thread) with the measured seconds.
  using KernelRunner =
      std::function<void(int gpu, const ComputeWork& work, std::function<void(double, const std::string&)> done)>;

  // Copies `bytes` between pinned DRAM and HBM of local GPU `gpu` through the CUDA copy engine (H2D when
  // to_device) and calls back (on any thread) with the measured seconds.
  using CopyRunner = std::function<void(int gpu, bool to_device, uint64_t bytes,
                                        std::function<void(double, const std::string&)> done)>;

  // `store_node` is this node's pacing bucket in `store`. Transports' region ids are global: region(gpu, loc).
  // With `copies`, a GPU's own DRAM <-> HBM transfers (H2D/D2H of Layer Blocks) go through the GPU's copy engine
  // instead of the transport.
  NodeAgent(int node, EventLoop& loop, BlockStore& store, int store_node, Transport& kv, Transport& model,
            NodeAgentOptions options, KernelRunner kernels = {}, CopyRunner copies = {});

  // Region id of a GPU's memory in every transport: two per GPU, HBM then DRAM share, GPUs in global order.
  static int region(int gpu, Loc loc) { return 2 * gpu + (loc == Loc::Hbm ? 0 : 1); }

  void read(std::vector<BlockKey> keys, Reply done);
  void write(std::vector<BlockKey> keys, Reply done);
  // Moves `bytes` from region src into local region dst (when src == dst, into the same GPU's other memory).
  void pull(TrafficClass cls, int src_region, int dst_region, uint64_t bytes, Reply done);
  void compute(int gpu, const ComputeWork& work, Reply done);

  int node() const { return node_; }
  bool real_compute() const { return static_cast<bool>(kernels_); }
  const NodeAgentStats& stats() const { return stats_; }

 private:
  int node_;
  EventLoop& loop_;
  BlockStore& store_;
  int store_node_;
  Transport& kv_;
  Transport& model_;
  NodeAgentOptions opt_;
  KernelRunner kernels_;
  CopyRunner copies_;
  bool fault_done_ = false;
  NodeAgentStats stats_;
};

}  // namespace dualpath::hw
