// The prefill phase: PE lockstep units run forward passes over batches formed under the compute quota, streamed in
// stages of layers (loads, compute and sends overlapped), and hand each finished request on to decode
// (DecodeGroups::kv_arrived). Private to core/cluster/; prefill_pipeline.cpp holds the mechanism.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cluster/cluster_hooks.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/ep_all_to_all.hpp"
#include "core/cluster/phase_base.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

// One request's share of a forward batch.
struct BatchEntry {
  int64_t request;
  int64_t cached;       // KV tokens loaded for this forward
  int64_t fresh;        // tokens prefilled in this forward
  int64_t send_tokens;  // tokens whose KV this forward sends to the DE buffer
  bool last_chunk;      // the request's prefill completes with this forward
};

// A forward pass of one prefill group, streamed in stages of `layers[s]` layers: stage s+1 loads while stage s
// computes (two stages of KV resident), and stage s's KV goes to the DE buffers while s+1 computes.
struct PrefillForward {
  int group = -1;
  std::vector<std::vector<BatchEntry>> batch;  // per engine of the group
  std::vector<int> layers;                     // layers per stage
  std::vector<int> loads_pending, sends_pending;
  std::vector<bool> loaded;
  int loads_started = 0;
  int computed = 0;          // stages whose compute finished
  bool computing = false;
  int sends_finished = 0;    // stages whose sends all finished
  std::vector<double> hbm_per_engine;  // HBM each engine holds for the forward (non-layerwise: the batch's KV)
  bool compute_finished = false;
  double start = 0;          // when the forward was formed (PE busy time)
  int log_forward = -1;      // the activity observer's handle for it (-1: not kept)
  bool lost = false;         // its group was lost with a node: callbacks still in flight do nothing
};

class KvIo;
class ReadQueues;
class DecodeGroups;

class PrefillPipeline : private PhaseBase {
 public:
  // Reads the scenario's quota and stage size, the cost model and the policy's features; changes the requests,
  // the PE engines' HBM and counts (view) and their accounts. Its forwards move KV through `io`, start their EP
  // all-to-all through `ep` and report to `*obs`; room given back pumps `reads`, finished prefills go to `decode`,
  // and first tokens and rounds that end there to the Cluster (hooks).
  PrefillPipeline(const PhaseShared& shared, const Scenario& scenario, const CostModel& cost,
                  const PolicyFeatures& features, EpAllToAll& ep, ActivityObserver* const& obs, ClusterHooks& hooks,
                  KvIo& io, ReadQueues& reads, DecodeGroups& decode);

  void ready(Request& r);  // its hit KV is in a DRAM buffer: it joins its PE's ready queue
  // Idle PE groups that left requests out for DE buffer room try again (room came back).
  void pump();
  // The KV-I/O facade's transfers end here (kv_io_storage.cpp).
  void release_loaded_layers(const PrefillForward& f, int stage);
  void try_compute(PrefillForward& f);
  void send_done(PrefillForward& f, int stage);

  // node-down: unit `u` is lost; its forwards in flight are dropped (kept, marked lost, for their callbacks).
  void lose_unit(size_t u);
  void drop_lost();  // lost attempts leave the ready queues

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
  void mark(const PrefillForward& f, WaitCause c);
  void start_loads(PrefillForward& f, int stage);
  void compute_done(PrefillForward& f, int stage);
  void forward_finished(PrefillForward& f);

  const Scenario& scenario_;
  const CostModel& cost_;
  const PolicyFeatures& features_;
  EpAllToAll& ep_;
  ActivityObserver* const& obs_;  // the Cluster's (set before start)
  ClusterHooks& hooks_;
  KvIo& io_;
  ReadQueues& reads_;
  DecodeGroups& decode_;
  std::vector<std::deque<int64_t>> ready_;  // per engine: requests whose hit KV is in a DRAM buffer
  std::vector<GroupState> units_;            // per lockstep unit (Cluster::pe_units)
  std::vector<std::unique_ptr<PrefillForward>> lost_forwards_;  // of lost units: their callbacks in flight find them
  double pe_busy_ = 0, pe_stage_seconds_ = 0, pe_balanced_seconds_ = 0;
};

}  // namespace dualpath
