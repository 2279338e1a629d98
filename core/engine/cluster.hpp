// The cluster brain: agents issue rounds, the scheduler places them on (PE, DE) pairs and picks the read path,
// node read queues load hit KV into DRAM buffers, PE groups run layerwise prefill forwards, DE groups take the
// handoff, decode and persist every full block, and the agent's next round follows. It only talks to a Backend,
// so the same code runs in simulated time (sim/) and in real time (hw/).
//
// The run is split by phase, each a class with its own state and one header and .cpp: ReadQueues (read_queues.*:
// storage read queues and buffer admission), PrefillPipeline (prefill_pipeline.*: PE forwards), DecodeGroups
// (decode_groups.*: handoff, decode chunks) and StorageWrites (storage_writes.*: persistence). The Cluster itself
// holds what they share (the view, the requests, the wait report) and the scheduler's fetch loop (cluster.cpp);
// cluster_lockstep.cpp (EP all-to-all of lockstep groups), kv_io*.{hpp,cpp} (where KV moves: through the backend,
// or free for the oracle), cluster_pool.cpp (the DRAM pool), cluster_faults.cpp and cluster_node_down.cpp (faults,
// which reach every phase through its methods).
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
#include "core/model/request.hpp"
#include "core/model/request_sink.hpp"
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

class Cluster {
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
  const std::vector<std::vector<int>>& pe_units() const { return pe_units_; }
  const std::vector<std::vector<int>>& de_units() const { return de_units_; }
  const PolicyFeatures& features() const { return features_; }
  const TransferTotals& totals() const { return totals_; }
  const CostModel& cost() const { return cost_; }
  int64_t rounds_total() const { return rounds_total_; }
  int64_t rounds_done() const { return rounds_done_; }
  double peak_buffer_fraction() const;  // max over nodes of peak DRAM buffer use / capacity
  // Where requests' time went, by cause and over time (the "what binds" report), and how busy or full each
  // resource the causes point at was over [0, end).
  const WaitTracker& waits() const { return waits_; }
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
  struct FaultRecord {
    FaultSpec spec;
    double started = -1, ended = -1;  // simulated seconds (-1: not reached; ended -1 = lasted to the end)
    int64_t reads_failed = 0;         // reads in flight that the fault failed (read again from scratch)
    int64_t writes_failed = 0;        // persistence writes in flight that it failed (written again when up)
    int64_t reads_moved = 0;          // queued or failed reads sent to the other read path or another PE
    double bytes_reread = 0, bytes_rewritten = 0;
    // node-down: rounds whose attempt was lost and restarted, the hit KV those attempts had read (or were reading)
    // for nothing, and the bytes of claimed blocks whose write was lost (written again by whoever computes them).
    int64_t rounds_restarted = 0;
    double bytes_lost = 0, writes_lost = 0;
  };
  const std::vector<FaultRecord>& faults() const { return faults_; }
  // The distributed DRAM KV pool (policies with features().dram_pool; nullptr otherwise).
  const DramPool* pool() const { return pool_.get(); }
  // Reports forwards, stages, KV transfers and decode chunks to `log` (nullptr: to nobody). Set before start().
  void set_activity_log(ActivityObserver* log) { obs_ = log ? log : &no_activity(); }

 private:
  struct Forward;  // a prefill forward pass (prefill_pipeline.hpp); the KV-I/O facade moves its stages' KV
  // The phases, each with its own state.
  class ReadQueues;
  class PrefillPipeline;
  class DecodeGroups;
  class StorageWrites;
  // The KV-I/O facade (kv_io.hpp): where KV moves, real (StorageKvIo) or free for the oracle (FreeKvIo).
  class KvIo;
  class StorageKvIo;
  class FreeKvIo;

  // agents and rounds (cluster.cpp)
  void issue_round(int agent, int round);
  void round_done(Request& r);
  // Finished, out of its decode batch and handed off (a round whose first token was its last is handed off after
  // that), or lost with a node: nothing of the engine changes or reads it again, except what a lost attempt still
  // has in flight.
  bool settled(const Request& r) const;
  void hand_over_settled();  // to the sink, in id order; frees what was handed over a chunk ago
  // scheduling (cluster.cpp)
  void arm_fetches();
  void prefill_fetch(int group);
  void decode_fetch(int group);
  void placed(Request& r);
  // dram-pool: of the blocks half `h` reads, starts reading from the pool those it holds, each holding node's over
  // the compute network into the PE's DRAM (`done` for each transfer), and returns the blocks left for storage
  // and the pool's bytes.
  struct PoolSplit {
    BlockRanges storage;
    double pool_bytes = 0;
    int transfers = 0;
  };
  PoolSplit read_from_pool(const Request& r, const BlockRanges& blocks, const Done& done);
  bool pool_serves(const BlockRanges& blocks) const;  // the DRAM pool holds every one of these blocks
  // dram-pool: persisted blocks written from `node`'s DRAM through to the pool (when they arrive there).
  void write_to_pool(int node, const BlockRanges& blocks);
  // faults (cluster_faults.cpp)
  void arm_faults();
  void fault_begins(size_t i);  // by the fault's effect (FaultEffect, core/config/fault_kinds.hpp)
  void fault_ends(size_t i);
  void snic_down(size_t fault);  // FaultEffect::SnicDown
  void snic_back(size_t fault);
  void apply_scales();
  int read_path_down(const Request& r) const;  // a node whose SNIC the request's read needs and is down (-1: none)
  int down_fault(int node) const;  // the active snic-down fault holding `node`'s SNIC down (-1: it is up)
  void reroute_read(Request& r, size_t fault);  // a read whose SNIC is down goes elsewhere, or waits
  void unplace_pe(Request& r);                  // back to the PE waiting queue (no other read path)
  void set_can_take(int node);                  // PE engines on `node` take requests iff they can load KV
  // node-down and cnic-down (cluster_node_down.cpp)
  void node_down(size_t fault);
  void cnic_down(size_t fault);
  void lose_engines(size_t fault, const std::function<bool(int)>& lost);  // units with a GPU that `lost` names
  void restart_lost_rounds(size_t fault);
  int live_port(int port) const;  // the next CNIC of port's node that is up
  bool lose_attempt(Request& r, FaultRecord& rec);  // releases what the attempt holds; true: its round restarts
  void drop_lost_from_queues();
  // Moves a request to a new cause, charging the time since its last change to the old one.
  void set_wait(Request& r, WaitCause c) {
    if (r.wait_cause == WaitCause::Count) return;  // its round is over
    waits_.charge(r.wait_cause, r.wait_since, be_.now());
    for (int side = 0; side < 2; ++side)
      waits_.move_holder(side, r.wait_cause, holder_cause(c), r.buffer_bytes[side], be_.now());
    r.wait_cause = c, r.wait_since = be_.now();
  }
  bool streamed_buffers() const { return sc_.policy.buffer == BufferLifecycle::Stream; }
  bool hbm_at_handoff() const { return sc_.policy.de_hbm == DeHbmAt::Handoff; }
  // Buffer room on `node` taken or given back for request `r` (occupancy over time, and who holds it).
  void reserve_buffer(Request& r, int node, double bytes) { buffer_change(r, node, bytes); }
  void release_buffer(Request& r, int node, double bytes) { buffer_change(r, node, -bytes); }
  void buffer_change(Request& r, int node, double bytes) {
    auto& b = view_.nodes[node].buffer;
    b.touch(be_.now());
    // Callers admit first (fits), so a refused reservation is a bookkeeping bug, never a silent drop: the request
    // would believe it holds room that the pool does not count.
    if (bytes >= 0 && !b.try_reserve(bytes))
      throw std::logic_error("cluster: DRAM buffer reservation of " + std::to_string(bytes) + " B on node " +
                             std::to_string(node) + " exceeds its free " + std::to_string(b.free()) + " B");
    if (bytes < 0) b.release(-bytes);
    const int side = view_.nodes[node].prefill ? 0 : 1;
    const double before = r.buffer_bytes[side];
    r.buffer_bytes[side] = std::max(0.0, before + bytes);
    waits_.hold(side, holder_cause(r.wait_cause), r.buffer_bytes[side] - before, be_.now());
  }
  // A round that ended at its first token may still hold DE buffer room until its handoff ends.
  static WaitCause holder_cause(WaitCause c) { return c == WaitCause::Count ? WaitCause::Handoff : c; }

  double kv_bytes(int64_t tokens) const { return static_cast<double>(tokens) * kv_per_token_; }
  double kv_bytes_layers(int64_t tokens, int layers) const {
    return static_cast<double>(tokens) * kv_per_token_layer_ * layers;
  }
  int node_of(int gpu) const { return gpu / gpus_per_node_; }
  // Nodes a lockstep unit spans (its EP all-to-all crosses the network between them).
  int nodes_spanned(const std::vector<int>& engines) const {
    return static_cast<int>((engines.size() + gpus_per_node_ - 1) / gpus_per_node_);
  }
  // The DE-node CNIC through which PE GPU `pe` reaches the DRAM buffer of decode GPU `de`'s node: the decode
  // engine's own CNIC (sim.kv_port = "engine"), or the CNIC at the PE GPU's local index on that node ("node":
  // the buffer is node DRAM; spreading by PE index keeps the DE CNICs balanced and lets one flow per
  // (PE GPU, DE node) carry a stage's KV instead of one per (PE GPU, DE GPU)).
  int buffer_port(int de, int pe) const {
    if (!per_node_ports_) return de;
    const int port = node_of(de) * gpus_per_node_ + pe % gpus_per_node_;
    return any_cnic_down_ && cnic_down_[static_cast<size_t>(port)] ? live_port(port) : port;  // cnic-down
  }
  // lockstep groups (cluster_lockstep.cpp): the EP all-to-all of one step of a unit (a prefill stage or a decode
  // chunk), as (engine index, bytes) flows from each engine's per-engine load (tokens or batch) x per_load x rdma
  // bytes per token and layer x layers; started with `done` for each flow.
  std::vector<std::pair<size_t, double>> ep_all_to_all(const std::vector<int>& engines,
                                                       const std::vector<double>& loads, double per_load, double rdma,
                                                       int layers) const;
  void start_ep_all_to_all(const std::vector<int>& engines, const std::vector<std::pair<size_t, double>>& flows,
                           const Done& done);
  int cross_node_peer(int gpu, const std::vector<int>& group) const;

  Scenario sc_;
  Backend& be_;
  ActivityObserver* obs_ = &no_activity();  // the activity log, or the observer that keeps nothing
  ClusterTuning tuning_;
  CostModel cost_;
  std::unique_ptr<Policy> policy_;
  PolicyFeatures features_;
  std::unique_ptr<KvIo> io_;
  ClusterView view_;
  BlockIndex blocks_;
  std::unique_ptr<DramPool> pool_;  // policy dram-pool
  std::vector<Agent> agents_;
  std::vector<int64_t> context_;  // per agent: tokens of context before its next round
  RequestLog requests_;
  RequestSink* sink_ = nullptr;
  bool free_settled_ = false;
  size_t handed_ = 0;        // requests [0, handed_) went to the sink
  size_t freed_chunks_ = 0;  // chunks of requests_ before this one are freed, or kept for a lost attempt's sake
  TransferTotals totals_;
  WaitTracker waits_;
  std::unique_ptr<StopRule> stop_rule_;
  StopReason stop_reason_ = StopReason::None;
  double stop_time_ = -1;
  int gpus_per_node_;
  bool per_node_ports_;
  int n_layers_;
  double kv_per_token_, kv_per_token_layer_;
  int64_t rounds_total_ = 0, rounds_done_ = 0;

  // scheduler queues
  std::deque<QueuedRequest> pe_waiting_, de_global_;
  std::vector<std::deque<QueuedRequest>> de_queues_;
  std::vector<bool> pe_fetch_armed_, de_fetch_armed_;
  std::vector<FaultRecord> faults_;
  // node-down and cnic-down: engines lost (with every engine of their lockstep unit), and dead CNICs
  std::vector<bool> engine_lost_;
  std::vector<bool> cnic_down_;  // per GPU: its compute NIC failed (cnic-down)
  bool any_cnic_down_ = false;
  std::vector<std::vector<int>> pe_units_, de_units_;  // engines that run forwards / decode steps in lockstep
  std::vector<int> unit_of_;                            // per GPU: its unit in pe_units_ or de_units_
  // The phases (constructed last: they size their state from the units).
  std::unique_ptr<ReadQueues> reads_;
  std::unique_ptr<PrefillPipeline> prefill_;
  std::unique_ptr<DecodeGroups> decode_;
  std::unique_ptr<StorageWrites> writes_;
};

}  // namespace dualpath
