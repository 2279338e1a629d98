// The decode stage: the handoff (the complete prompt KV from the DE buffer into decode HBM, its new blocks
// persisted), then decode steps of DE lockstep units in chunks; every block decoding fills goes to the persist
// stage through the KV-I/O service. A round whose last token came goes on to the next stage (the round's end, the
// Cluster). Private to core/cluster/; decode_stage.cpp holds the mechanism.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/ep_all_to_all.hpp"
#include "core/cluster/fault_record.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/stage_base.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/kv/block_index.hpp"
#include "core/kv/de_residency.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

class DecodeStage final : public RequestStage, public ResidentPrefixes, private StageBase {
 public:
  // Reads the scenario's chunking and model, the cost model and the block index; changes the requests, the DE
  // engines' HBM and counts (view) and their accounts. The handoff moves KV through `io`, and filled blocks go to
  // the persist stage through it; decode chunks start their EP all-to-all through `ep` and report to `*obs`; rounds
  // whose last token came go on to `next`; settled requests are signalled.
  // With `keep_contexts` (PolicyFeatures::de_resident) a round's context stays pinned in its engine's HBM after the
  // round for policy.de_retention, for the agent's next round to pull (ResidentPrefixes).
  DecodeStage(const StageShared& shared, const Scenario& scenario, const CostModel& cost, const BlockIndex& blocks,
              EpAllToAll& ep, ActivityObserver* const& obs, StageSignals& signals, KvIo& io, RequestStage& next,
              bool keep_contexts);

  void accept(Request& r) override;  // every stage of its prompt KV is in the DE buffer: the handoff starts

  // pe-pull-from-de (ResidentPrefixes): the engine holding the agent's last context in HBM when it covers r's hit
  // and the engine can take r (r then holds that HBM), else -1 (a context it cannot use is dropped); contexts kept
  // past the retention time go.
  int claim(Request& r) override;
  void expire_due() override;
  const DeResidency* residency() const { return residency_.get(); }  // null unless contexts are kept

  // Faults: unit `u` is lost with a node or a CNIC (its chunk in flight does nothing; its filled blocks not yet on
  // their way to storage are unclaimed, their bytes counted in `rec`). An attempt was lost: its DE engine's counts
  // and HBM go back (`engine_lost`: the engine itself is gone). Lost attempts leave the HBM queues, lost units their
  // batches (drop_lost).
  void on_unit_lost(size_t u, FaultRecord& rec);
  void on_lost(const Request& r, bool engine_lost);
  void drop_lost();

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
  };
  void start_handoff(Request& r);
  void handoff_done(Request& r);  // the KV-I/O service ends the handoff here
  // HBM given back on a decode engine (a round ended): with HBM allocated at handoff, waiting handoffs start.
  void release_hbm(int engine, double bytes);
  // A lost attempt leaves its engine's HBM queue; true when it was waiting there (it holds no HBM then).
  bool leave_hbm_wait(const Request& r);
  void start_h2d(Request& r);
  // The HBM r's handoff takes on its engine: its prompt and generation, less what it holds there already.
  double handoff_hbm(const Request& r) const { return layout_.kv_bytes(r.prompt + r.gen) - r.decode.resident_bytes(); }
  // A handoff waits for HBM on `engine`: with contexts kept there, a timer expires the oldest when its time comes.
  void arm_expiry(int engine);
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

  const Scenario& scenario_;
  const CostModel& cost_;
  const BlockIndex& blocks_;
  EpAllToAll& ep_;
  ActivityObserver* const& obs_;  // the Cluster's (set before start)
  StageSignals& signals_;
  KvIo& io_;
  RequestStage& next_;
  // per decode engine, with policy.de_hbm = "handoff": requests whose prompt KV is in the DE buffer, waiting for
  // the engine's HBM (FIFO)
  std::vector<std::deque<int64_t>> hbm_waiting_;
  std::vector<GroupState> units_;  // per lockstep unit (Cluster::de_units)
  double de_busy_ = 0;
  DecodeLayerParts decode_parts_;
  std::unique_ptr<DeResidency> residency_;  // contexts kept in decode HBM (pe-pull-from-de), else null
  std::vector<bool> expiry_armed_;         // per engine: a retention timer is pending
  std::vector<DecodeEngineLoad> loads_;  // per-chunk scratch: each engine's share of the step (no allocation per chunk)
};

}  // namespace dualpath
