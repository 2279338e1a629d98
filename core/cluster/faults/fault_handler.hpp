// Faults as handlers (scenario "faults", docs/faults.md): what a fault does when it hits and when it ends, one
// handler per effect (FaultEffect, core/config/fault_kinds.hpp), kept in the effect table (effect_table.cpp). A
// handler changes the cluster only through the stages' fault hooks (on_snic_down, on_lost, ...) and the parts a
// FaultScope names; it never reaches into a stage's state. The backend scales link bandwidths and fails the storage
// I/O in flight on a NIC that goes down; the stages react as a scheduler would. Nothing is dropped: every round
// completes exactly once (tests/core/faults_test.cpp, tests/cli/sim_faults.sh). Private to core/cluster/.
#pragma once

#include <cstddef>
#include <memory>

#include "core/cluster/cluster_parts.hpp"
#include "core/cluster/decode_stage.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/persist_stage.hpp"
#include "core/cluster/placement_stage.hpp"
#include "core/cluster/prefill_stage.hpp"
#include "core/cluster/read_stage.hpp"
#include "core/config/fault_kinds.hpp"

namespace dualpath {

// What a fault reaches: the Cluster's parts (cluster_parts.hpp: the view, the layout, the requests, the accounts, the
// fault book, the buffer ports, the backend, the Cluster's rounds), the stages and the KV-I/O service.
struct FaultScope {
  const ClusterParts& cluster;
  PlacementStage& placement;
  ReadStage& reads;
  PrefillStage& prefill;
  DecodeStage& decode;
  PersistStage& persist;
  KvIo& io;
};

class FaultHandler {
 public:
  virtual ~FaultHandler() = default;
  // Fault `fault` of s.cluster.faults hits (its record's `started` is set) and ends (`ended` set; a fault that lasts to the end
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
