// The interface between the backend-independent brain (core/) and a body that moves bytes and runs compute:
// sim/ implements it on SimGrid activities, hw/ on files, UCX and CUDA, tests/ on a closed-form fake.
//
// Everything is asynchronous: a call starts work and returns at once; the backend later calls `done` from its
// event loop, on the thread that drives the core (the core is single-threaded and never blocks or sleeps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualpath {

using Done = std::function<void()>;
using Failed = std::function<void(const std::string& error)>;

// A memory a transfer starts or ends in. GPU indices are global: node * gpus_per_node + local index.
enum class Loc : uint8_t {
  Hbm,   // the GPU's HBM
  Dram,  // the host DRAM of the GPU's node, reached through that GPU's paired CNIC (the PE/DE buffer)
};
struct Place {
  Loc loc;
  int gpu;
};

// Traffic classes share CNICs by weight under QoS (model 99 : KV 1, work-conserving).
enum class TrafficClass : uint8_t { Model, Kv };

// What a transfer is, for accounting and traces; the route follows from (src, dst).
enum class Hop : uint8_t {
  H2D,            // DRAM -> HBM on one GPU (CNIC loopback)
  D2H,            // HBM -> DRAM on one GPU (CNIC loopback)
  HbmToRemoteDram,  // PE HBM -> DE buffer (PE path steps 5-7, DE path miss-KV return)
  RemoteDramToHbm,  // DE buffer -> PE HBM (DE path steps 3-5)
  Collective,     // model traffic between GPUs (EP all-to-all)
  PoolRead,       // DRAM pool (holding node's DRAM) -> PE node DRAM (policy dram-pool)
  PoolWrite,      // DE node DRAM -> DRAM pool on the holding node (write-through of persisted blocks)
  RemoteHbmToHbm,  // GPU to GPU (pe-pull-from-de: a prefix kept in decode HBM to the PE, its new KV back)
};
const char* hop_name(Hop h);

// One sequence's share of a compute: `cached` tokens already in the KV cache, `fresh` queries computed now
// (prefill: the request's new tokens; decode: 1 per step, cached = the context).
struct SeqShape {
  int64_t cached = 0;
  int64_t fresh = 0;
};

// A unit of GPU work. `seconds` is the cost model's prediction; a hardware backend may run real kernels
// shaped by the other fields and report the measured time instead.
struct ComputeWork {
  double seconds = 0;
  double flops = 0;
  int layers = 0;
  int64_t tokens = 0;  // new tokens (prefill) or batch size x steps (decode), summed over the engine group
  bool decode = false;
  // The shape a real kernel needs, per GPU, for one layer (and one step when decoding): the attention of the
  // group's slowest GPU (the group runs in lockstep), the tokens each GPU's linear/MoE layers see, the weight
  // bytes each GPU holds, and the decode steps this work covers (1 for prefill).
  std::vector<SeqShape> seqs;
  double linear_tokens = 0;
  double weight_bytes_per_gpu = 0;
  int steps = 1;
};

// Full Blocks [first, last) of one stream of content (block b holds tokens [b, b+1) x block_tokens). A stream is
// an agent's own token sequence or content several agents share (core/kv/block_index.hpp). A storage call names
// the blocks it moves so a backend that keeps real blocks (hw/) can key its files by them; the simulator only
// needs the byte count. An empty list means anonymous bytes (tests, calibration).
struct BlockRange {
  int stream = -1;
  int64_t first = 0, last = 0;
};
using BlockRanges = std::vector<BlockRange>;

// A callback that runs `done` on its n-th call and does nothing before (n >= 1): the count-down of a group of
// completions that the caller waits for as one (Backend::transfer_group's default, the SimGrid engine's groups).
Done after_all(size_t n, Done done);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual double now() const = 0;
  // storage -> node DRAM through the node's SNIC (Full Blocks). A backend whose reads can fail (hw/) calls
  // `failed` instead of `done` when the read did not deliver its blocks, so the core can retry it on the other read
  // path; without `failed` it stops the run itself. The simulator's reads never fail.
  virtual void storage_read(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) = 0;
  // storage -> GPU `gpu`'s HBM through its node's SNIC and the GPU's PCIe link, no host DRAM (GPUDirect Storage,
  // topology.storage.gdr). A backend that cannot read into GPU memory refuses such a scenario before its run; this
  // default says so if one is asked anyway.
  virtual void storage_read_to_hbm(int gpu, const BlockRanges& blocks, double bytes, Done done, Failed failed);
  void storage_read(int node, const BlockRanges& blocks, double bytes, Done done) {
    storage_read(node, blocks, bytes, std::move(done), Failed{});
  }
  // node DRAM -> storage through the node's SNIC (persisting Full Blocks). `failed` as for storage_read: only a
  // backend that injects faults calls it (fail_storage_io), and the core writes the blocks again later.
  virtual void storage_write(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) = 0;
  void storage_write(int node, const BlockRanges& blocks, double bytes, Done done) {
    storage_write(node, blocks, bytes, std::move(done), Failed{});
  }
  // Anonymous bytes, no block identity (closed-form tests, calibration).
  void storage_read(int node, double bytes, Done done) {
    storage_read(node, BlockRanges{}, bytes, std::move(done), Failed{});
  }
  void storage_write(int node, double bytes, Done done) { storage_write(node, BlockRanges{}, bytes, std::move(done)); }
  // Between memories over CNICs (and PCIe/DRAM); cls picks the QoS lane.
  virtual void transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) = 0;
  // Transfers started together that the caller waits for as one (a lockstep step's EP all-to-all): `done` runs
  // once, when the last of them would have run its own, and never for an empty group (refused). This default
  // starts each with transfer() and counts their completions; a backend may do better (the native engine queues
  // one completion event for the group instead of one per transfer: docs/performance.md, "Round 4 (issue 63)", item 1).
  struct GroupPart {
    Place src, dst;
    double bytes;
  };
  virtual void transfer_group(Hop hop, const std::vector<GroupPart>& parts, TrafficClass cls, Done done);
  // GPU compute on one GPU.
  virtual void compute(int gpu, const ComputeWork& work, Done done) = 0;
  // Fire `done` after `delay` seconds.
  virtual void timer(double delay, Done done) = 0;
  // Faults (scenario "faults", core/cluster/faults/). A backend that can inject them says so; the core
  // calls track_storage_io() before any storage I/O starts, then the calls below at each fault's start and end.
  virtual bool can_inject_faults() const { return false; }
  virtual void track_storage_io() { throw std::logic_error("this backend cannot inject faults"); }
  // Sets a node's SNIC (both directions) to `factor` x its nominal bandwidth (> 0; 1 restores it).
  virtual void scale_snic(int /*node*/, double /*factor*/) { throw std::logic_error("this backend cannot inject faults"); }
  // The same for every storage server's NIC and SSDs.
  virtual void scale_storage(double /*factor*/) { throw std::logic_error("this backend cannot inject faults"); }
  // Fails every storage read and write in flight through `node`'s SNIC: each one's `failed` runs (from the event
  // loop, not inside this call) with `why`, and its `done` never does. What it moved so far is lost.
  virtual void fail_storage_io(int /*node*/, const std::string& /*why*/) {
    throw std::logic_error("this backend cannot inject faults");
  }
  // Ending a run early (the online stop rule, workload.stop): whether this backend can, and the request to do so.
  // After stop() the backend drops all pending work at once: no callback of it runs. A backend that cannot
  // (real hardware, where work in flight cannot be dropped) says so and the Cluster refuses the configuration.
  virtual bool can_stop() const { return false; }
  virtual void stop() { throw std::logic_error("this backend cannot end a run early"); }
};

}  // namespace dualpath
