// The Cluster's stages, wired: the one place that says which stage hands a request on to which, and which services
// and parts of the Cluster each one reads or changes. Built back to front, so each stage is given the next one
// already built. Private to core/cluster/ (the Cluster builds it last, once its layout is filled).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "core/cluster/cluster_parts.hpp"
#include "core/cluster/decode_stage.hpp"
#include "core/cluster/faults/fault_handler.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/persist_stage.hpp"
#include "core/cluster/prefetch_gate.hpp"
#include "core/cluster/placement_stage.hpp"
#include "core/cluster/prefill_stage.hpp"
#include "core/cluster/read_stage.hpp"

namespace dualpath {

struct ClusterStages {
  explicit ClusterStages(const ClusterParts& c)
      : parts(c),
        shared{c.be, c.requests, c.view, c.layout, c.accounts},
        persist(c.be, c.view, c.layout, c.blocks, c.totals, c.sources, c.faults, c.signals, c.persist_flush_bytes),
        io(c.features.bypass_io ? std::unique_ptr<KvIo>(std::make_unique<FreeKvIo>(c.blocks))
                                : std::make_unique<StorageKvIo>(shared, c.blocks, c.totals, c.ports, c.sources, c.obs,
                                                                c.signals, persist)),
        decode(shared, c.scenario, c.decode_cost, c.blocks, c.ep, c.obs, c.signals, *io, c.round_end,
               c.features.de_resident),
        prefetch_gate(c.accounts, decode),
        prefill(shared, c.scenario, c.cost, c.features, c.ep, c.obs, c.signals, *io, prefetch_gate),
        reads(shared, c.blocks, c.totals, c.sources, c.faults, c.signals, prefill, c.policy,
              c.reads_in_flight_per_node, static_cast<int>(c.view.nodes.size()), c.features.de_prefetch,
              prefetch_gate),
        free_reads(c.be, c.blocks, c.layout, c.view, c.policy, prefill),
        placement(shared, c.scenario.deployment.fetch_period, c.policy, c.scenario.policy.name, c.faults,
                  c.features.bypass_io ? static_cast<RequestStage&>(free_reads) : reads,
                  c.features.de_resident ? &decode : nullptr),
        faults{parts, placement, reads, prefill, decode, persist, *io} {}

  ClusterParts parts;  // a copy: the one the Cluster filled is gone after construction
  StageShared shared;
  PersistStage persist;
  std::unique_ptr<KvIo> io;  // where KV moves: through the backend (StorageKvIo), or free for the oracle
  DecodeStage decode;
  PrefetchGate prefetch_gate;  // decode waits for a decode-side prefetch (de-prefetch); others pass through
  PrefillStage prefill;
  ReadStage reads;
  FreeReads free_reads;  // the oracle's: nothing is read
  PlacementStage placement;
  FaultScope faults;  // what the fault handlers reach (faults/fault_handler.hpp)
};

}  // namespace dualpath
