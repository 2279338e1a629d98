// Faults as handlers (scenario "faults", docs/faults.md): what a fault does when it hits and when it ends, one
// handler per effect (FaultEffect, core/config/fault_kinds.hpp), kept in the effect table (effect_table.cpp). A
// handler changes the cluster only through the stages' fault hooks (on_snic_down, on_lost, ...) and the parts a
// FaultScope names; it never reaches into a stage's state. The backend scales link bandwidths and fails the storage
// I/O in flight on a NIC that goes down; the stages react as a scheduler would. Nothing is dropped: every round
// completes exactly once (tests/core/faults_test.cpp, tests/cli/sim_faults.sh). Private to core/cluster/.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/backend/backend.hpp"
#include "core/cluster/buffer_ports.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/decode_stage.hpp"
#include "core/cluster/fault_book.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/persist_stage.hpp"
#include "core/cluster/placement_stage.hpp"
#include "core/cluster/prefill_stage.hpp"
#include "core/cluster/read_stage.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/config/fault_kinds.hpp"
#include "core/config/scenario.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

// What a fault reaches: the stages, the services and the parts of the Cluster a fault changes. The Cluster
// builds it once its stages are wired.
struct FaultScope {
  const Scenario& scenario;
  Backend& be;
  ClusterView& view;
  const ClusterLayout& layout;
  RequestLog& requests;
  RequestAccounts& accounts;
  FaultBook& book;
  BufferPorts& ports;
  const Policy& policy;
  PlacementStage& placement;
  ReadStage& reads;
  PrefillStage& prefill;
  DecodeStage& decode;
  PersistStage& persist;
  KvIo& io;
  // The Cluster's rounds: a lost attempt's round restarts as a new request; settled requests go to the sink;
  // requests before first_unsettled() were handed to it (and may be freed).
  std::function<void(int agent, int round)> restart_round;
  std::function<void()> hand_over_settled;
  std::function<size_t()> first_unsettled;
};

class FaultHandler {
 public:
  virtual ~FaultHandler() = default;
  // Fault `fault` of s.book hits (its record's `started` is set) and ends (`ended` set; a fault that lasts to the end
  // of the run never ends).
  virtual void begins(FaultScope& s, size_t fault) = 0;
  virtual void ends(FaultScope& s, size_t fault) = 0;
};

// The handler of an effect: a built-in one (registered on first use), or one registered since. std::out_of_range
// for an effect with none.
FaultHandler& fault_handler(FaultEffect effect);
// Adds (or replaces) the handler of `effect`: a built-in one, or an effect registered with register_fault_effect
// (core/config/fault_kinds.hpp). Not thread-safe: register before runs start.
void register_fault_handler(FaultEffect effect, std::unique_ptr<FaultHandler> handler);

// Arms the scenario's faults at t = 0 (records in s.book, timers for their start and end).
void arm_faults(FaultScope& s);

}  // namespace dualpath
