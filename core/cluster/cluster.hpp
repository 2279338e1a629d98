// The cluster brain: agents issue rounds, the scheduler places them on (PE, DE) pairs and picks the read path,
// node read queues load hit KV into DRAM buffers, PE groups run layerwise prefill forwards, DE groups take the
// handoff, decode and persist every full block, and the agent's next round follows. It only talks to a Backend,
// so the same code runs in simulated time (sim/) and in real time (hw/).
//
// A round is a one-way pipeline of stages, each a class that owns its slice of the request, in its own header and
// .cpp, handing the request on through RequestStage (stage.hpp): PlacementStage (placement_stage.*: the
// scheduler's queues and fetch loop) -> ReadStage (read_stage.*: storage read queues and buffer admission; FreeReads
// for the oracle) -> PrefillStage (prefill_stage.*: PE forwards) -> DecodeStage (decode_stage.*: handoff, decode
// chunks) -> the round's end (here). PersistStage (persist_stage.*: writes to storage) sits beside decode. The
// stages call services that never call a stage by name: the KV-I/O service (kv_io*.*: where KV moves, through the
// backend or free for the oracle), the KV sources (kv_sources.hpp), the EP all-to-all (ep_all_to_all.*), the
// requests' accounts (request_accounts.hpp), the DE buffer ports (buffer_ports.hpp), the layout
// (cluster_layout.hpp). What flows back up the pipeline goes through StageSignals, which the Cluster routes.
// Faults are handlers, one per effect (faults/), that reach the stages through their fault hooks; FaultBook
// (fault_book.hpp) records them. The Cluster is the composition root (cluster_stages.hpp wires the stages) and holds
// the agents' rounds and the stop rule.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/backend/run_errors.hpp"  // NoProgressError, StorageError: thrown by the Cluster
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cluster/buffer_ports.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/ep_all_to_all.hpp"
#include "core/cluster/fault_book.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/vocab/request.hpp"
#include "core/vocab/request_sink.hpp"
#include "core/kv/block_index.hpp"
#include "core/kv/de_residency.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/metrics/stop_rule.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/metrics/wait_report.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"
#include "core/workload/agents.hpp"

namespace dualpath {

struct ClusterStages;  // the stages, wired (cluster_stages.hpp)

// Knobs of the engines that the paper leaves open (docs/assumptions.md).
struct ClusterTuning {
  int reads_in_flight_per_node = 4;  // concurrent storage reads per node SNIC (FIFO queue behind them)
  double persist_flush_bytes = 256e6;  // a decode engine persists its filled blocks once this many accumulate
                                       // (or when one of its requests finishes)
};

class Cluster : private RequestStage, private StageSignals {
 public:
  Cluster(const Scenario& scenario, std::vector<Agent> agents, Backend& backend, ClusterTuning tuning = {});
  ~Cluster();

  void start();                       // schedules the agents' first rounds; call at t = 0 from the backend
  bool finished() const { return rounds_done_ == rounds_total_; }
  std::string stall_report() const;  // why requests are left when the backend ran out of work

  // Every request of the run by id; with a sink that frees (set_request_sink), only those not yet handed over
  // (reading one that was freed throws std::logic_error).
  const RequestLog& requests() const { return requests_; }
  // Hands each request to `sink` once it and every request before it are settled (RequestSink); with
  // `free_settled` the memory of those handed over is given back (a chunk of them at a time, one chunk behind).
  // Set before start(); nullptr (the default): requests are kept and handed to nobody.
  void set_request_sink(RequestSink* sink, bool free_settled) { sink_ = sink, free_settled_ = free_settled; }
  // After the run: hands over every request not handed over yet, settled or not (a run cut short leaves some).
  void hand_over_rest();
  const std::vector<Agent>& agents() const { return agents_; }
  const ClusterView& view() const { return view_; }
  // The lockstep units: a whole EP group when weights are sharded, else each engine on its own (the activity
  // log's `unit` indexes them).
  const std::vector<std::vector<int>>& pe_units() const { return layout_.pe_units; }
  const std::vector<std::vector<int>>& de_units() const { return layout_.de_units; }
  const PolicyFeatures& features() const { return features_; }
  const TransferTotals& totals() const { return totals_; }
  // The prefill engines' cost model and the decode engines' (each role's own GPU and EP network: mixed hardware).
  const CostModel& cost() const { return cost_; }
  const CostModel& decode_cost() const { return decode_cost_; }
  int64_t rounds_total() const { return rounds_total_; }
  int64_t rounds_done() const { return rounds_done_; }
  double peak_buffer_fraction() const;  // max over nodes of peak DRAM buffer use / capacity
  // Where requests' time went, by cause and over time (the "what binds" report), and how busy or full each
  // resource the causes point at was over [0, end).
  const WaitTracker& waits() const { return accounts_.waits(); }
  // The online stop rule (workload.stop = "slo"): why and when it ended the run (None: it did not), and the
  // rule's last window means. nullptr when the rule is off.
  const StopRule* stop_rule() const { return stop_rule_.get(); }
  StopReason stop_reason() const { return stop_reason_; }
  double stop_time() const { return stop_time_; }
  ResourceUse resource_use(double end) const;
  // Storage reads that failed and were retried (on the other read path where the policy has two), and why.
  int64_t read_retries() const { return static_cast<int64_t>(read_failures().size()); }
  const std::vector<std::string>& read_failures() const;
  // The scenario's faults as they happened (faults/): when each hit and ended and what it cost.
  using FaultRecord = dualpath::FaultRecord;
  const std::vector<FaultRecord>& faults() const { return faults_.records(); }
  // The KV tiers in front of storage (the DRAM pool of policies with features().dram_pool; none otherwise); each
  // writes its own sections of the run's report (KvSources::report).
  const KvSources& kv_sources() const { return *sources_; }
  // The contexts decode engines kept in HBM between rounds (policies with features().de_resident), else null.
  const DeResidency* residency() const;
  // Reports forwards, stages, KV transfers and decode chunks to `log` (nullptr: to nobody). Set before start().
  void set_activity_log(ActivityObserver* log) { obs_ = log ? log : &no_activity(); }

 private:

  // RequestStage: the round's end, after decode (or after prefill when the first token was the last).
  void accept(Request& r) override { round_done(r); }
  // StageSignals: what flows back up the pipeline, routed to the stage it concerns.
  void pe_room_back(int node) override;
  void reads_may_start() override;
  void de_room_back() override;
  void place_again(Request& r) override;
  void first_token(const Request& r) override;
  void round_done(Request& r) override;
  void hand_over_settled() override;  // to the sink, in id order; frees what was handed over a chunk ago

  // agents and rounds (cluster.cpp)
  void issue_round(int agent, int round);
  // Finished, out of its decode batch and handed off (a round whose first token was its last is handed off after
  // that), or lost with a node: nothing of the Cluster changes or reads it again, except what a lost attempt still
  // has in flight.
  bool settled(const Request& r) const;

  Scenario sc_;
  Backend& be_;
  ActivityObserver* obs_ = &no_activity();  // the activity log, or the observer that keeps nothing
  ClusterTuning tuning_;
  CostModel cost_;         // the prefill engines'
  CostModel decode_cost_;  // the decode engines'
  std::unique_ptr<Policy> policy_;
  PolicyFeatures features_;
  ClusterView view_;
  ClusterLayout layout_;  // filled by the constructor, before the stages are built
  BlockIndex blocks_;
  std::vector<Agent> agents_;
  std::vector<int64_t> context_;  // per agent: tokens of context before its next round
  RequestLog requests_;
  RequestSink* sink_ = nullptr;
  bool free_settled_ = false;
  size_t handed_ = 0;        // requests [0, handed_) went to the sink
  size_t freed_chunks_ = 0;  // chunks of requests_ before this one are freed, or kept for a lost attempt's sake
  TransferTotals totals_;
  RequestAccounts accounts_;
  EpAllToAll ep_;
  BufferPorts ports_;
  std::unique_ptr<KvSources> sources_;  // the KV tiers in front of storage (the DRAM pool of policy dram-pool)
  std::unique_ptr<StopRule> stop_rule_;
  StopReason stop_reason_ = StopReason::None;
  double stop_time_ = -1;
  int64_t rounds_total_ = 0, rounds_done_ = 0;
  int64_t agents_started_ = 0, agents_finished_ = 0;  // agents in flight = the difference (the stop rule's backlog)

  FaultBook faults_;  // the scenario's faults as they happen, and the engines they lost
  // The stages (built last: they size their state from the layout).
  std::unique_ptr<ClusterStages> stages_;
};

}  // namespace dualpath
