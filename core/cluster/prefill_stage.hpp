// The prefill stage: PE lockstep units run forward passes over batches formed under the compute quota, streamed in
// stages of layers (loads, compute and sends overlapped), and hand each request whose prompt KV is all in the DE
// buffer on to the next stage (decode). Private to core/cluster/; prefill_stage.cpp holds the mechanism.
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
#include "core/cluster/kv_io.hpp"
#include "core/cluster/stage_base.hpp"
#include "core/cluster/prefill_forward.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

class PrefillStage final : public RequestStage, public ForwardIoListener, private StageBase {
 public:
  // Reads the scenario's quota and stage size, the cost model and the policy's features; changes the requests,
  // the PE engines' HBM and counts (view) and their accounts. Its forwards move KV through `io`, start their EP
  // all-to-all through `ep` and report to `*obs`; finished prefills go on to `next`, and room given back, first
  // tokens and rounds that end here go out as `signals`.
  PrefillStage(const StageShared& shared, const Scenario& scenario, const CostModel& cost,
               const PolicyFeatures& features, EpAllToAll& ep, ActivityObserver* const& obs, StageSignals& signals,
               KvIo& io, RequestStage& next);

  void accept(Request& r) override;  // its hit KV is in a DRAM buffer: it joins its PE's ready queue
  // Idle PE groups that left requests out for DE buffer room try again (room came back).
  void pump();
  // The KV-I/O service's transfers of a forward's stage end here.
  void load_ended(PrefillForward& f, int stage) override;
  void send_ended(PrefillForward& f, int stage) override;

  // Faults: unit `u` is lost with a node; its forwards in flight are dropped (kept, marked lost, for their
  // callbacks). An attempt was lost: its PE engine's counts go back (unless its prefill was over). Lost attempts
  // leave the ready queues (drop_lost).
  void on_unit_lost(size_t u);
  void on_lost(Request& r);
  void drop_lost();

  double busy_seconds() const { return pe_busy_; }  // PE units' time in forwards
  double stage_seconds() const { return pe_stage_seconds_; }  // predicted compute of every stage (slowest engine)
  double balanced_seconds() const { return pe_balanced_seconds_; }  // the same at every group's mean attention

 private:
  struct GroupState {
    bool lost = false;               // an engine of the group was lost with a node (fault node-down)
    bool waits_for_de_room = false;  // its last formation left ready requests out for lack of DE buffer room
    std::unique_ptr<PrefillForward> current;                // the forward whose compute is running (at most one)
    std::vector<std::unique_ptr<PrefillForward>> draining;  // forwards whose sends are still in flight
  };
  void maybe_start(int group);
  void try_compute(PrefillForward& f);
  void release_loaded_layers(const PrefillForward& f, int stage);
  void send_done(PrefillForward& f, int stage);
  void mark(const PrefillForward& f, WaitCause c);
  void start_loads(PrefillForward& f, int stage);
  void compute_done(PrefillForward& f, int stage);
  void forward_finished(PrefillForward& f);

  const Scenario& scenario_;
  const CostModel& cost_;
  const PolicyFeatures& features_;
  EpAllToAll& ep_;
  ActivityObserver* const& obs_;  // the Cluster's (set before start)
  StageSignals& signals_;
  KvIo& io_;
  RequestStage& next_;
  std::vector<std::deque<int64_t>> ready_;  // per engine: requests whose hit KV is in a DRAM buffer
  std::vector<GroupState> units_;            // per lockstep unit (Cluster::pe_units)
  std::vector<std::unique_ptr<PrefillForward>> lost_forwards_;  // of lost units: their callbacks in flight find them
  double pe_busy_ = 0, pe_stage_seconds_ = 0, pe_balanced_seconds_ = 0;
};

}  // namespace dualpath
