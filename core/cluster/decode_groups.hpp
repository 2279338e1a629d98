// The decode phase: the handoff (the complete prompt KV from the DE buffer into decode HBM, its new blocks
// persisted), then decode steps of DE lockstep units in chunks, and the persistence of every block decoding fills.
// A round ends here (Cluster::round_done). Private to core/cluster/; decode_groups.cpp holds the mechanism.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cluster/cluster_hooks.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/ep_all_to_all.hpp"
#include "core/cluster/fault_record.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/phase_base.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

// Blocks an agent claimed for one storage write (core/kv/block_index.hpp), and whose pending write it is.
struct AgentWrite {
  int agent = -1;
  BlockRanges blocks;
};

class KvIo;
class ReadQueues;
class StorageWrites;

class DecodeGroups : private PhaseBase {
 public:
  // Reads the scenario's chunking and model, the cost model; changes the requests, the DE engines' HBM and counts
  // (view), their accounts, the block index (claims of filled blocks) and the transfer totals. The handoff moves KV
  // through `io`, filled blocks are persisted through `writes` (and written through to the KV `sources`), written
  // blocks pump `reads`; rounds that end go to the Cluster (hooks).
  DecodeGroups(const PhaseShared& shared, const Scenario& scenario, const CostModel& cost, BlockIndex& blocks,
               TransferTotals& totals, EpAllToAll& ep, ActivityObserver* const& obs, ClusterHooks& hooks, KvIo& io,
               KvSources& sources, StorageWrites& writes, ReadQueues& reads, double persist_flush_bytes);

  void kv_arrived(Request& r);    // every stage of its prompt KV is in the DE buffer: the handoff starts
  void handoff_done(Request& r);  // the KV-I/O facade ends the handoff here
  // HBM given back on a decode engine (a round ended): with HBM allocated at handoff, waiting handoffs start.
  void release_hbm(int engine, double bytes);

  // node-down and cnic-down: unit `u` is lost; its filled blocks not yet on their way to storage are unclaimed
  // (their bytes counted in `rec`).
  void lose_unit(size_t u, FaultRecord& rec);
  // A lost attempt leaves its engine's HBM queue; true when it was waiting there (it holds no HBM then).
  bool leave_hbm_wait(const Request& r);
  void drop_lost();  // lost attempts leave the HBM queues, lost units their batches

  double busy_seconds() const { return de_busy_; }  // DE units' time in decode chunks
  // Modelled decode step seconds by part, summed over chunks and layers.
  const DecodeLayerParts& parts() const { return decode_parts_; }

 private:
  struct GroupState {
    std::vector<std::vector<int64_t>> active;   // per engine of the group: requests decoding
    std::vector<std::vector<int64_t>> joining;  // per engine: handoffs done, join at the next chunk
    // per engine, with sim.decode_chunk_end = "steps": handoffs done during the chunk in flight that joined it at
    // step k (the next step boundary after their handoff), with k
    std::vector<std::vector<std::pair<int64_t, int>>> boarded;
    bool running = false;
    bool lost = false;  // an engine of the group was lost with a node: the chunk in flight does nothing
    int steps = 0;      // steps of the chunk in flight
    double step_time = 0;
    double chunk_start = 0;
    int pending = 0;     // compute + collectives of the chunk still running
    int log_chunk = -1;  // the activity observer's handle for the running chunk
    std::vector<double> unflushed_bytes;                    // per engine: filled blocks not yet persisted
    std::vector<std::vector<AgentWrite>> unflushed_blocks;  // per engine: whose blocks, and which
  };
  void start_handoff(Request& r);
  void start_h2d(Request& r);
  void maybe_start_chunk(int group);
  void chunk_done(int group);
  // sim.decode_chunk_end = "steps": request `id` of engine `i` of the group, decoding from step `from` of the
  // chunk in flight, has its last token at a step before the chunk's end; a timer ends its round there.
  void finish_at_step(int group, size_t i, int64_t id, int from, int64_t left);
  void finish_inside(int group, size_t i, int64_t id, int from);
  // Claims r's blocks filled up to its tokens so far for persistence, into `into`; returns their bytes.
  double claim_filled(Request& r, std::vector<AgentWrite>& into);
  // A round's last token came: its engine's counts and HBM are given back and the round ends.
  void end_round(Request& r);
  // Persists engine i's filled blocks not yet written when forced[i] (one of its requests finished: the agent's
  // next read needs them) or, with `full_ones`, when ClusterTuning::persist_flush_bytes have accumulated.
  void flush(int group, const std::vector<bool>& forced, bool full_ones);

  const Scenario& scenario_;
  const CostModel& cost_;
  BlockIndex& blocks_;
  TransferTotals& totals_;
  EpAllToAll& ep_;
  ActivityObserver* const& obs_;  // the Cluster's (set before start)
  ClusterHooks& hooks_;
  KvIo& io_;
  KvSources& sources_;
  StorageWrites& writes_;
  ReadQueues& reads_;
  double persist_flush_bytes_;  // ClusterTuning::persist_flush_bytes
  // per decode engine, with policy.de_hbm = "handoff": requests whose prompt KV is in the DE buffer, waiting for
  // the engine's HBM (FIFO)
  std::vector<std::deque<int64_t>> hbm_waiting_;
  std::vector<GroupState> units_;  // per lockstep unit (Cluster::de_units)
  double de_busy_ = 0;
  DecodeLayerParts decode_parts_;
  std::vector<DecodeEngineLoad> loads_;  // per-chunk scratch: each engine's share of the step (no allocation per chunk)
};

}  // namespace dualpath
