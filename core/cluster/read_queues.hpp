// The read phase: one FIFO storage read queue per node SNIC, and DRAM buffer admission. A request's hit KV is read
// here, through the PE node, the DE node or both (split reads), into the DRAM buffer the path chose; the request
// then goes on to prefill (PrefillPipeline::ready). Private to core/cluster/; read_queues.cpp holds the mechanism.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/cluster/cluster_hooks.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/phase_base.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/vocab/request.hpp"
#include "core/mutation/mutant.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

class PrefillPipeline;

class ReadQueues : private PhaseBase {
 public:
  // One queue entry: one half of a request's read (a split request has one in each node's queue).
  struct ReadEntry {
    int64_t id;
    NodeSide half;  // whose node's SNIC reads it
  };

  // Reads and changes: the requests, the nodes' read-queue counts and SNIC state (view), their accounts, the
  // transfer totals; reads the block index (which blocks, written yet) and asks the KV sources what they serve.
  // A fault's failed read goes back to the Cluster (hooks), another failed read is retried on the side the policy
  // says; a request whose read is in goes on to `prefill`.
  ReadQueues(const PhaseShared& shared, const BlockIndex& blocks, TransferTotals& totals, KvSources& sources,
             ClusterHooks& hooks, PrefillPipeline& prefill, const Policy& policy, int reads_per_node, int nodes);

  void enqueue(Request& r);  // the read path is chosen: its halves join their nodes' queues
  void pump(int node);       // starts what the node's queue can start now
  void pump_all();
  // The read path the policy chose (Split: the first pe_hit tokens through the PE node, the rest through the DE
  // node; a split with nothing on one side becomes a one-sided read).
  void set_read_side(Request& r, ReadSide side, int64_t pe_hit = 0);
  // Gives up the halves of a split read not done yet (queued ones leave their queues; ones in flight are ignored
  // when they end) so the request can be read again whole; returns the bytes of halves already started.
  double abandon(Request& r);
  // Takes half `h` out of its node's queue (charged up to now) and its tokens off the node's count; `weight` is
  // what the entry stood for (queued_entry_weight before any half left).
  void unqueue_half(Request& r, NodeSide h, double weight);
  // Empties `node`'s queue (its time charged up to now) and returns what it held, in order (a SNIC that went down).
  std::deque<ReadEntry> take_queue(int node);

  // The requests a queue entry of `r` stands for: 1, or 1/2 for each half of a split read while both wait.
  static double queued_entry_weight(const Request& r) {
    return 1.0 / std::max(1, r.halves(Request::Half::Queued));
  }
  static bool has_half(const Request& r, NodeSide half) {
    return half == NodeSide::Pe ? r.side != ReadSide::De : r.side != ReadSide::Pe;
  }
  int read_node(const Request& r, NodeSide half) const { return layout_.node_of(half == NodeSide::Pe ? r.pe : r.de); }
  int64_t half_tokens(const Request& r, NodeSide half) const {
    return half == NodeSide::Pe ? r.pe_hit : r.hit - r.pe_hit;
  }
  double half_bytes(const Request& r, NodeSide half) const {
    if (r.side == ReadSide::Split && mutant("split_reads_whole")) return r.hit_bytes;
    return half == NodeSide::Pe ? r.pe_hit_bytes : r.hit_bytes - r.pe_hit_bytes;
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
    NodeSide half;
    int epoch;
    int64_t tokens;
    double bytes;           // from storage
    double pool_bytes = 0;  // from the DRAM pool (dram-pool), read beside it
  };
  void charge_queue(int node);  // charges the node's queued reads up to now
  WaitCause admit(Request& r);  // Count when admitted, else what the read waits for
  void start_read(int node, const ReadEntry& entry, bool slot);  // the entry has left its queue, admitted
  // Starts the queued halves of split reads whose requests are admitted (they need only a read slot). Only a run
  // that has split a read can have one, so others skip the scan.
  void start_admitted_halves(int node);
  void read_done(Request& r, NodeSide half);
  void read_failed(Request& r, const HalfRead& read, const std::string& error);
  BlockRanges half_blocks(const Request& r, NodeSide half) const;  // the blocks half `half` reads
  // Whether half `half` takes one of the SNIC's read slots: unless other KV sources serve all of it.
  bool needs_slot(const Request& r, NodeSide half) const;

  const BlockIndex& blocks_;
  TransferTotals& totals_;
  KvSources& sources_;
  ClusterHooks& hooks_;
  PrefillPipeline& prefill_;
  const Policy& policy_;  // where a failed read is read again (Policy::other_read_side)
  int reads_per_node_;  // ClusterTuning::reads_in_flight_per_node
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

}  // namespace dualpath
