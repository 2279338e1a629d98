// The placement stage: the scheduler's queues and its fetch loop. A new round waits in the PE waiting queue and
// the global decode queue; PE and DE group leaders fetch periodically (phase-shifted per group) and the policy's
// placement (core/sched/) picks the prefill engine, routes the request to a decode group and picks its decode
// engine. Once both engines are known the request goes on to the next stage (reads, where the read path is
// picked). Faults reach it here: a prefill node that cannot read takes no request (policies without the DE read
// path), lost engines take none, and attempts lost with them leave its queues. Private to core/cluster/;
// placement_stage.cpp holds the mechanism.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "core/cluster/fault_book.hpp"
#include "core/cluster/stage_base.hpp"
#include "core/cluster/stage.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

class PlacementStage final : public RequestStage, private StageBase {
 public:
  // Fetches every `fetch_period` seconds; changes the requests' engines and the engines' counts (view) and their
  // accounts; asks the policy where; reads which engines a fault lost (`faults`); placed requests go on to `next`.
  // With `resident` (pe-pull-from-de) a request goes to the decode engine that holds its prefix, when one does.
  // `policy_name` names the policy in the no-progress watchdog's error.
  PlacementStage(const StageShared& shared, double fetch_period, Policy& policy, const std::string& policy_name,
                 const FaultBook& faults, RequestStage& next, ResidentPrefixes* resident = nullptr);

  // The no-progress watchdog (issue 80): a policy's placement that leaves requests waiting while every engine of
  // the role is idle and able to take one, for this long in simulated time, ends the run with NoProgressError
  // naming the policy (nothing else can change what it sees: no request holds an engine; HBM a resident prefix
  // pins expires within policy.de_retention). A placement that never places would otherwise fetch forever.
  static constexpr double kNoProgressWindow = 3600;

  void accept(Request& r) override;  // a new round (or a restarted one) waits for both engines
  void place_again(Request& r);      // its read cannot go through its PE node: back to the PE waiting queue
  // Arms the group leaders' next fetch where their queues hold requests.
  void arm_fetches();

  // Faults. A node's SNIC went down or came back: without the DE read path its prefill engines take requests only
  // while it is up. Engines were lost: they take none again. Lost attempts leave the queues (drop_lost); requests
  // routed to a decode group that lost engines go back to the global decode queue.
  void on_snic_change(int node);
  void on_engines_lost(const std::vector<int>& engines);
  void drop_lost();

  // For Cluster::stall_report: requests waiting for a prefill engine, and for a decode group.
  size_t pe_waiting() const { return pe_waiting_.size(); }
  size_t de_unrouted() const { return de_global_.size(); }

 private:
  void prefill_fetch(int group);
  void decode_fetch(int group);
  void placed(Request& r);
  // After a fetch of `role` (prefill: true) that placed `placed_any`: the watchdog's clock for that role.
  void watch(bool prefill, bool placed_any, size_t waiting);
  // The policy reads hit KV only through the PE node's SNIC (it has no other read side).
  bool pe_reads_only() const { return policy_.other_read_side(ReadSide::Pe) == ReadSide::Unset; }

  double fetch_period_;
  Policy& policy_;
  const FaultBook& faults_;
  RequestStage& next_;
  ResidentPrefixes* resident_;  // the decode stage, with pe-pull-from-de; else null
  std::deque<QueuedRequest> pe_waiting_, de_global_;
  std::vector<std::deque<QueuedRequest>> de_queues_;
  std::vector<bool> pe_fetch_armed_, de_fetch_armed_;
  std::string policy_name_;
  double pe_stuck_since_ = -1, de_stuck_since_ = -1;  // the watchdog: since when (-1: not stuck)
};

}  // namespace dualpath
