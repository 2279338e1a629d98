// Persistence writes of KV blocks to storage, from a node's DRAM through its SNIC: the prompt's new blocks at the
// handoff (kv_io_storage.cpp) and the blocks decoding fills (decode_groups.cpp). Faults reach them here: a write on
// a SNIC that is down waits for it (parked), one that a fault failed is written again, and a lost node's writes in
// flight are undone so their blocks can be claimed again. Private to core/cluster/.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/cluster/cluster_hooks.hpp"
#include "core/cluster/fault_record.hpp"
#include "core/kv/block_index.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

class StorageWrites {
 public:
  // Reads the nodes' SNIC state (view); a lost node's writes unclaim their blocks; a failed write is counted in its
  // fault's record (hooks).
  StorageWrites(Backend& be, const ClusterView& view, BlockIndex& blocks, ClusterHooks& hooks, size_t nodes)
      : be_(be), view_(view), blocks_(blocks), hooks_(hooks), parked_(nodes), inflight_(nodes) {}

  // A scenario fault can lose a node: from now on writes in flight are tracked (track), so a lost node's can be
  // undone.
  void track_lost_writes() { track_ = true; }
  bool tracking() const { return track_; }
  // Claimed blocks on their way to storage from `node` (and the agents whose write_started they carry); returns the
  // write's id, or -1 when writes are not tracked.
  int64_t track(int node, const BlockRanges& blocks, std::vector<int> agents, double bytes);
  bool live(int node, int64_t write) const {
    return write < 0 || inflight_[static_cast<size_t>(node)].count(write) > 0;
  }
  // Writes `blocks` (`bytes`) from `node`'s DRAM to storage, then `done`; `write` is its id from track(). A write
  // on a SNIC that is down waits for it; one a fault fails is written again when the SNIC is back.
  void persist(int node, int64_t write, const BlockRanges& blocks, double bytes, Done done);
  void snic_back(int node);  // the node's parked writes start
  // node-down: the node's writes in flight or parked are lost; their blocks are unclaimed (bytes counted in `rec`).
  void lose_node(int node, FaultRecord& rec);

 private:
  struct InflightWrite {
    BlockRanges blocks;
    std::vector<int> agents;  // one write_started each
    double bytes = 0;
  };
  Backend& be_;
  const ClusterView& view_;
  BlockIndex& blocks_;
  ClusterHooks& hooks_;
  bool track_ = false;
  int64_t next_ = 0;
  std::vector<std::vector<Done>> parked_;  // per node: writes waiting for its SNIC
  std::vector<std::unordered_map<int64_t, InflightWrite>> inflight_;  // per node: tracked writes in flight
};

}  // namespace dualpath
