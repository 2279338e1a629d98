// The cluster brain: agents issue rounds, the scheduler places them on (PE, DE) pairs and picks the read path,
// node read queues load hit KV into DRAM buffers, PE groups run layerwise prefill forwards, DE groups take the
// handoff, decode and persist every full block, and the agent's next round follows. It only talks to a Backend,
// so the same code runs in simulated time (sim/) and in real time (hw/).
//
// The run is split by phase, each a class with its own state and one header and .cpp, wired in phases.hpp to
// exactly the parts it reads or changes: ReadQueues (read_queues.*: storage read queues and buffer admission),
// PrefillPipeline (prefill_pipeline.*: PE forwards), DecodeGroups (decode_groups.*: handoff, decode chunks),
// StorageWrites (storage_writes.*: persistence) and the KV-I/O facade (kv_io*.*: where KV moves, through the backend
// or free for the oracle). What they share is a part with one job each: the layout (cluster_layout.hpp), the
// requests' accounts (request_accounts.hpp), the EP all-to-all (ep_all_to_all.*), the KV sources (kv_sources.hpp:
// storage, or the DRAM pool in front of it), the DE buffer ports (buffer_ports.hpp). The Cluster itself holds the
// agents' rounds, the scheduler's fetch loop (cluster.cpp), the stop rule and the faults (cluster_faults.cpp,
// cluster_node_down.cpp), and the phases reach it only through ClusterHooks (cluster_hooks.hpp).
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
#include "core/backend/run_errors.hpp"  // NoProgressError, StorageError: thrown by the engine
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/cluster/buffer_ports.hpp"
#include "core/cluster/cluster_hooks.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/ep_all_to_all.hpp"
#include "core/cluster/fault_record.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/vocab/request.hpp"
#include "core/vocab/request_sink.hpp"
#include "core/kv/block_index.hpp"
#include "core/kv/dram_pool.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/metrics/stop_rule.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/metrics/wait_report.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"
#include "core/workload/agents.hpp"

namespace dualpath {

// Knobs of the engines that the paper leaves open (docs/assumptions.md).
struct ClusterTuning {
  int reads_in_flight_per_node = 4;  // concurrent storage reads per node SNIC (FIFO queue behind them)
  double persist_flush_bytes = 256e6;  // a decode engine persists its filled blocks once this many accumulate
                                       // (or when one of its requests finishes)
};

class Cluster : private ClusterHooks {
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
  const CostModel& cost() const { return cost_; }
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
  // The scenario's faults as they happened (cluster_faults.cpp): when each hit and ended and what it cost.
  using FaultRecord = dualpath::FaultRecord;
  const std::vector<FaultRecord>& faults() const { return faults_; }
  // The distributed DRAM KV pool (policies with features().dram_pool; nullptr otherwise).
  const DramPool* pool() const { return sources_->pool(); }
  // Reports forwards, stages, KV transfers and decode chunks to `log` (nullptr: to nobody). Set before start().
  void set_activity_log(ActivityObserver* log) { obs_ = log ? log : &no_activity(); }

 private:
  struct Phases;  // the phases, wired (phases.hpp)

  // ClusterHooks: what the phases ask of the Cluster.
  void round_done(Request& r) override;
  void hand_over_settled() override;  // to the sink, in id order; frees what was handed over a chunk ago
  void first_token(const Request& r) override;
  bool has_faults() const override { return !faults_.empty(); }
  int down_fault(int node) const override;  // the active snic-down fault holding `node`'s SNIC down (-1: it is up)
  FaultRecord& fault(size_t i) override { return faults_[i]; }
  int read_path_down(const Request& r) const override;  // a node whose SNIC the read needs and is down (-1: none)
  void reroute_read(Request& r, size_t fault) override;  // a read whose SNIC is down goes elsewhere, or waits

  // agents and rounds (cluster.cpp)
  void issue_round(int agent, int round);
  // Finished, out of its decode batch and handed off (a round whose first token was its last is handed off after
  // that), or lost with a node: nothing of the engine changes or reads it again, except what a lost attempt still
  // has in flight.
  bool settled(const Request& r) const;
  // scheduling (cluster.cpp)
  void arm_fetches();
  void prefill_fetch(int group);
  void decode_fetch(int group);
  void placed(Request& r);
  // faults (cluster_faults.cpp)
  void arm_faults();
  void fault_begins(size_t i);  // by the fault's effect (FaultEffect, core/config/fault_kinds.hpp)
  void fault_ends(size_t i);
  void snic_down(size_t fault);  // FaultEffect::SnicDown
  void snic_back(size_t fault);
  void apply_scales();
  void unplace_pe(Request& r);                  // back to the PE waiting queue (no other read path)
  void set_can_take(int node);                  // PE engines on `node` take requests iff they can load KV
  // The policy reads hit KV only through the PE node's SNIC (it has no other read side).
  bool pe_reads_only() const { return policy_->other_read_side(ReadSide::Pe) == ReadSide::Unset; }
  // node-down and cnic-down (cluster_node_down.cpp)
  void node_down(size_t fault);
  void cnic_down(size_t fault);
  void lose_engines(size_t fault, const std::function<bool(int)>& lost);  // units with a GPU that `lost` names
  void restart_lost_rounds(size_t fault);
  bool lose_attempt(Request& r, FaultRecord& rec);  // releases what the attempt holds; true: its round restarts
  void drop_lost_from_queues();

  Scenario sc_;
  Backend& be_;
  ActivityObserver* obs_ = &no_activity();  // the activity log, or the observer that keeps nothing
  ClusterTuning tuning_;
  CostModel cost_;
  std::unique_ptr<Policy> policy_;
  PolicyFeatures features_;
  ClusterView view_;
  ClusterLayout layout_;  // filled by the constructor, before the phases are built
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
  std::unique_ptr<KvSources> sources_;  // storage, or the DRAM pool in front of it (policy dram-pool)
  std::unique_ptr<StopRule> stop_rule_;
  StopReason stop_reason_ = StopReason::None;
  double stop_time_ = -1;
  int64_t rounds_total_ = 0, rounds_done_ = 0;
  int64_t agents_started_ = 0, agents_finished_ = 0;  // agents in flight = the difference (the stop rule's backlog)

  // scheduler queues
  std::deque<QueuedRequest> pe_waiting_, de_global_;
  std::vector<std::deque<QueuedRequest>> de_queues_;
  std::vector<bool> pe_fetch_armed_, de_fetch_armed_;
  std::vector<FaultRecord> faults_;
  // node-down and cnic-down: engines lost (with every engine of their lockstep unit), and dead CNICs
  std::vector<bool> engine_lost_;
  // The phases (built last: they size their state from the layout).
  std::unique_ptr<Phases> phases_;
};

}  // namespace dualpath
