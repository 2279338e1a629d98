// The read stage: one FIFO storage read queue per node SNIC, and DRAM buffer admission. A request's hit KV is read
// here, through the PE node, the DE node or both (split reads, the policy's choice), into the DRAM buffer the path
// chose; the request then goes on to the next stage (prefill). A read that a fault keeps off its SNIC goes to the
// other read path, back to placement, or waits (on_snic_down, reroute); a lost attempt's read is undone (on_lost).
// The oracle reads nothing: FreeReads stands in for this stage. Private to core/cluster/; read_stage.cpp holds the
// mechanism.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/fault_book.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/stage_base.hpp"
#include "core/cluster/read_path.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/vocab/request.hpp"
#include "core/mutation/mutant.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

class ReadStage final : public RequestStage, private StageBase {
 public:
  // One queue entry: one half of a request's read (a split request has one in each node's queue).
  struct ReadEntry {
    int64_t id;
    ReadSide half;          // whose node's SNIC reads it
    bool prefetch = false;  // the DE node's decode-side prefetch of the whole hit (de-prefetch)
  };

  // Reads and changes: the requests, the nodes' read-queue counts and SNIC state (view), their accounts, the
  // transfer totals; reads the block index (which blocks, written yet) and asks the KV sources what they serve.
  // The policy picks the read path and where a failed read is read again; a read a fault failed is counted in its
  // record (`faults`); a request whose read is in goes on to `next`, and what flows back goes out as `signals`.
  // With `prefetch` (PolicyFeatures::de_prefetch) the DE node of a PE-path read also reads the whole hit into its
  // buffer, starting when the PE read does; each that ends is reported to `prefetched`.
  ReadStage(const StageShared& shared, const BlockIndex& blocks, TransferTotals& totals, KvSources& sources,
            FaultBook& faults, StageSignals& signals, RequestStage& next, Policy& policy, int reads_per_node,
            int nodes, bool prefetch, PrefetchListener& prefetched);

  // Both engines are known: the policy picks the read path and the halves join their nodes' queues (or, with a
  // chosen SNIC down, the read goes where it can: reroute).
  void accept(Request& r) override;
  void pump(int node);  // starts what the node's queue can start now
  void pump_all();

  // Faults. The node's SNIC went down (fault `fault`): what its queue holds goes elsewhere where it can. It is back:
  // its queue starts again. An attempt was lost with a node: its read leaves the queues, what it read is counted
  // lost in `rec`.
  void on_snic_down(int node, size_t fault);
  void on_snic_back(int node) { pump(node); }
  void on_lost(Request& r, FaultRecord& rec);

  // The requests a queue entry of `r` stands for: 1, or 1/2 for each half of a split read while both wait.
  static double queued_entry_weight(const Request& r) {
    return 1.0 / std::max(1, r.read.halves(ReadHalf::Queued));
  }
  static bool has_half(const Request& r, ReadSide half) {
    return half == ReadSide::Pe ? r.read.side() != ReadSide::De : r.read.side() != ReadSide::Pe;
  }
  int read_node(const Request& r, ReadSide half) const { return layout_.node_of(half == ReadSide::Pe ? r.pe : r.de); }
  int64_t half_tokens(const Request& r, ReadSide half) const {
    return half == ReadSide::Pe ? r.read.pe_hit() : r.hit - r.read.pe_hit();
  }
  double half_bytes(const Request& r, ReadSide half) const {
    if (r.read.side() == ReadSide::Split && mutant("split_reads_whole")) return r.hit_bytes;
    return half == ReadSide::Pe ? r.read.pe_hit_bytes() : r.hit_bytes - r.read.pe_hit_bytes();
  }

  // Storage reads that failed and were retried, and why.
  const std::vector<std::string>& failures() const { return read_failures_; }
  // For Cluster::stall_report: the entries queued on all nodes, and each non-empty queue's length, reads in
  // flight, and what its head waits for.
  size_t queued() const;
  void describe_heads(std::ostream& m) const;

 private:
  struct HalfRead {  // one storage read in flight, as it was started (a split request may change side since)
    int node;
    ReadSide half;
    int epoch;
    int64_t tokens;
    double bytes;           // from storage
    double pool_bytes = 0;  // from the DRAM pool (dram-pool), read beside it
  };
  void enqueue(Request& r);  // the read path is set: its halves join their nodes' queues
  void set_read_side(Request& r, ReadSide side, int64_t pe_hit = 0) { set_read_path(r, side, pe_hit, blocks_, layout_); }
  // A read that cannot go through its SNIC now (queued there when it went down, or failed by it), fault `fault`:
  // to the other side with the DE read path, back to placement without it (unless no PE can read: then it waits),
  // or it waits in the queue where it is.
  void reroute(Request& r, size_t fault);
  int read_path_down(const Request& r) const;  // a node whose SNIC the read needs and is down (-1: none)
  // Gives up the halves of a split read not done yet (queued ones leave their queues; ones in flight are ignored
  // when they end) so the request can be read again whole; returns the bytes of halves already started.
  double abandon(Request& r);
  // Takes half `h` out of its node's queue (charged up to now) and its tokens off the node's count; `weight` is
  // what the entry stood for (queued_entry_weight before any half left).
  void unqueue_half(Request& r, ReadSide h, double weight);
  void charge_queue(int node);  // charges the node's queued reads up to now
  WaitCause admit(Request& r);  // Count when admitted, else what the read waits for
  void start_read(int node, const ReadEntry& entry, bool slot);  // the entry has left its queue, admitted
  // Reads `blocks` (`bytes`) for r through `node`'s SNIC, the KV tiers serving what they hold; then `done`, or
  // `failed` with the storage part's error (and the bytes counted for it, taken back by the caller).
  // `hbm_gpu` >= 0: the storage part lands in that GPU's HBM (GPUDirect Storage, topology.storage.gdr).
  void read_blocks(int node, const Request& r, BlockRanges blocks, double bytes, const Done& done,
                   std::function<void(const std::string&, double storage_bytes, double pool_bytes)> failed,
                   int hbm_gpu = -1);
  void release_pe_hbm(Request& r);  // a gdr read's PE HBM, given back (its read is undone or moved)
  // Decode-side prefetch: whether r gets one (a PE-path read of a hit, with the feature on); its entry joins the DE
  // node's queue when the PE read starts; it starts (its DE room was reserved with the PE read's admission), ends,
  // or fails (read again once on the same node; a fault's SNIC down: it waits for the SNIC).
  bool prefetches(const Request& r) const { return prefetch_ && r.read.side() == ReadSide::Pe && r.hit > 0; }
  void enqueue_prefetch(Request& r);
  void start_prefetch(int node, const ReadEntry& entry, bool slot);
  void prefetch_failed(Request& r, int node, double bytes, double pool_bytes, const std::string& error);
  // Starts the queued halves of split reads whose requests are admitted (they need only a read slot). Only a run
  // that has split a read can have one, so others skip the scan.
  void start_admitted_halves(int node);
  void read_done(Request& r, ReadSide half);
  void read_failed(Request& r, const HalfRead& read, const std::string& error);
  BlockRanges half_blocks(const Request& r, ReadSide half) const;  // the blocks half `half` reads
  // Whether a queue entry's read takes one of the SNIC's read slots: unless other KV sources serve all of it.
  bool needs_slot(const Request& r, const ReadEntry& entry) const;

  const BlockIndex& blocks_;
  TransferTotals& totals_;
  KvSources& sources_;
  FaultBook& faults_;
  StageSignals& signals_;
  RequestStage& next_;
  Policy& policy_;  // the read path, and where a failed read is read again (Policy::other_read_side)
  int reads_per_node_;  // ClusterTuning::reads_in_flight_per_node
  bool prefetch_;       // PolicyFeatures::de_prefetch
  PrefetchListener& prefetched_;
  bool split_reads_ = false;
  std::vector<std::deque<ReadEntry>> read_queue_;
  std::vector<double> queued_weight_;  // per node: the requests its entries stand for (each half of a split one 1/2)
  // What a node's queued reads wait for, charged for the whole queue at once: the SNIC while its read slots are
  // full, else what blocks the head (buffer room, a pending write), since FIFO order holds the rest behind it.
  struct QueueWait {
    WaitCause cause = WaitCause::ReadQueue;
    double since = 0;
  };
  std::vector<QueueWait> queue_wait_;
  std::vector<int> reads_in_flight_;
  std::vector<std::string> read_failures_;
};

// The oracle's reads (PolicyFeatures::bypass_io): nothing is read. The request takes the policy's read path (for
// the report) and goes straight on, its read starting and ending now.
class FreeReads final : public RequestStage {
 public:
  FreeReads(Backend& be, const BlockIndex& blocks, const ClusterLayout& layout, const ClusterView& view,
            Policy& policy, RequestStage& next)
      : be_(be), blocks_(blocks), layout_(layout), view_(view), policy_(policy), next_(next) {}
  void accept(Request& r) override;

 private:
  Backend& be_;
  const BlockIndex& blocks_;
  const ClusterLayout& layout_;
  const ClusterView& view_;
  Policy& policy_;
  RequestStage& next_;
};

}  // namespace dualpath
