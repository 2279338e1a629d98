// The Cluster's phases, wired: the one place that says which part of the Cluster each phase reads or changes and
// which phase it hands on to. Private to core/cluster/ (the Cluster builds it last, once its layout is filled).
#pragma once

#include <memory>

#include "core/cluster/cluster.hpp"
#include "core/cluster/decode_groups.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/prefill_pipeline.hpp"
#include "core/cluster/read_queues.hpp"
#include "core/cluster/storage_writes.hpp"

namespace dualpath {

struct Cluster::Phases {
  // Members are built in order; a phase may keep a reference to one built after it (it only calls it later).
  explicit Phases(Cluster& c)
      : shared{c.be_, c.requests_, c.view_, c.layout_, c.accounts_},
        io(c.features_.bypass_io
               ? std::unique_ptr<KvIo>(std::make_unique<FreeKvIo>(c.be_, c.blocks_, prefill, decode))
               : std::make_unique<StorageKvIo>(shared, c.blocks_, c.totals_, c.ports_, *c.sources_, c.obs_,
                                               hooks(c), reads, prefill, decode, writes)),
        writes(c.be_, c.view_, c.blocks_, hooks(c), c.view_.nodes.size()),
        reads(shared, c.blocks_, c.totals_, *c.sources_, hooks(c), prefill, *c.policy_,
              c.tuning_.reads_in_flight_per_node, static_cast<int>(c.view_.nodes.size())),
        prefill(shared, c.sc_, c.cost_, c.features_, c.ep_, c.obs_, hooks(c), *io, reads, decode),
        decode(shared, c.sc_, c.cost_, c.blocks_, c.totals_, c.ep_, c.obs_, hooks(c), *io, *c.sources_, writes,
               reads, c.tuning_.persist_flush_bytes) {}

  // The Cluster as the phases see it (its ClusterHooks base is private to it).
  static ClusterHooks& hooks(Cluster& c) { return c; }

  PhaseShared shared;
  std::unique_ptr<KvIo> io;  // where KV moves: through the backend (StorageKvIo), or free for the oracle
  StorageWrites writes;
  ReadQueues reads;
  PrefillPipeline prefill;
  DecodeGroups decode;
};

}  // namespace dualpath
