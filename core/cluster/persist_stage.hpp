// The persist stage: KV blocks on their way to storage, from a node's DRAM through its SNIC. The prompt's new
// blocks at the handoff (kv_io_storage.cpp) and the blocks decoding fills, which each decode engine batches until
// one of its requests finishes or ClusterTuning::persist_flush_bytes accumulate (flush: D2H through the engine's
// CNIC, then one storage write per node). It owns what is not yet written: each engine's unflushed blocks and the
// writes in flight. Faults reach it here: a write on a SNIC that is down waits for it (parked), one that a fault
// failed is written again, and a lost node's or unit's writes are undone so their blocks can be claimed again.
// The KV-I/O service reaches it as its BlockWriter (kv_io.hpp), and the decode stage only through that service. Private to core/cluster/.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/fault_book.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/stage.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

class PersistStage final : public BlockWriter {
 public:
  // Reads the nodes' SNIC state (view); claims, persists and unclaims blocks in the block index; counts bytes in
  // `totals`; writes persisted blocks through to the KV `sources`; a failed write is counted in its fault's
  // record; a landed write of filled blocks may let reads start (signals).
  PersistStage(Backend& be, const ClusterView& view, const ClusterLayout& layout, BlockIndex& blocks,
               TransferTotals& totals, KvSources& sources, FaultBook& faults, StageSignals& signals,
               double persist_flush_bytes);

  // A scenario fault can lose a node: from now on writes in flight are tracked (track), so a lost node's can be
  // undone.
  void track_lost_writes() { track_ = true; }
  bool tracking() const { return track_; }
  // Claimed blocks on their way to storage from `node` (and the agents whose write_started they carry); returns the
  // write's id, or -1 when writes are not tracked.
  int64_t track(int node, const BlockRanges& blocks, std::vector<int> agents, double bytes) override;
  bool live(int node, int64_t write) const {
    return write < 0 || inflight_[static_cast<size_t>(node)].count(write) > 0;
  }
  // Writes `blocks` (`bytes`) from `node`'s DRAM to storage, then `done`; `write` is its id from track(). A write
  // on a SNIC that is down waits for it; one a fault fails is written again when the SNIC is back.
  void persist(int node, int64_t write, const BlockRanges& blocks, double bytes, Done done) override;

  // Blocks decoding filled on decode engine `gpu`, claimed (bytes, and whose), to be written with its next flush.
  void add_filled(int gpu, double bytes, std::vector<AgentWrite> writes) override;
  // Persists the filled blocks of engine engines[i] when forced[i] (one of its requests finished: the agent's next
  // read needs them) or, with `full_ones`, when persist_flush_bytes have accumulated.
  void flush(const std::vector<int>& engines, const std::vector<bool>& forced, bool full_ones) override;

  // Faults. The node's SNIC is back: its parked writes start. The node is lost: its writes in flight or parked are
  // lost, their blocks unclaimed (bytes counted in `rec`). Decode engines are lost: their filled blocks not yet on
  // their way to storage are unclaimed.
  void on_snic_back(int node);
  void on_node_lost(int node, FaultRecord& rec);
  void on_engines_lost(const std::vector<int>& engines, FaultRecord& rec) override;

 private:
  struct InflightWrite {
    BlockRanges blocks;
    std::vector<int> agents;  // one write_started each
    double bytes = 0;
  };
  Backend& be_;
  const ClusterView& view_;
  const ClusterLayout& layout_;
  BlockIndex& blocks_;
  TransferTotals& totals_;
  KvSources& sources_;
  FaultBook& faults_;
  StageSignals& signals_;
  double persist_flush_bytes_;  // ClusterTuning::persist_flush_bytes
  bool track_ = false;
  int64_t next_ = 0;
  std::vector<std::vector<Done>> parked_;  // per node: writes waiting for its SNIC
  std::vector<std::unordered_map<int64_t, InflightWrite>> inflight_;  // per node: tracked writes in flight
  std::vector<double> unflushed_bytes_;                    // per GPU: filled blocks not yet persisted
  std::vector<std::vector<AgentWrite>> unflushed_blocks_;  // per GPU: whose blocks, and which
};

}  // namespace dualpath
