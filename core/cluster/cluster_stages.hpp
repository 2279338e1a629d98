// The Cluster's stages, wired: the one place that says which stage hands a request on to which, and which services
// and parts of the Cluster each one reads or changes. Built back to front, so each stage is given the next one
// already built. Private to core/cluster/ (the Cluster builds it last, once its layout is filled).
#pragma once

#include <memory>

#include "core/cluster/cluster.hpp"
#include "core/cluster/decode_stage.hpp"
#include "core/cluster/faults/fault_handler.hpp"
#include "core/cluster/kv_io.hpp"
#include "core/cluster/persist_stage.hpp"
#include "core/cluster/placement_stage.hpp"
#include "core/cluster/prefill_stage.hpp"
#include "core/cluster/read_stage.hpp"

namespace dualpath {

struct Cluster::Stages {
  explicit Stages(Cluster& c)
      : shared{c.be_, c.requests_, c.view_, c.layout_, c.accounts_},
        persist(c.be_, c.view_, c.layout_, c.blocks_, c.totals_, *c.sources_, c.faults_, signals(c),
                c.tuning_.persist_flush_bytes),
        io(c.features_.bypass_io ? std::unique_ptr<KvIo>(std::make_unique<FreeKvIo>(c.blocks_))
                                 : std::make_unique<StorageKvIo>(shared, c.blocks_, c.totals_, c.ports_, *c.sources_,
                                                                 c.obs_, signals(c), persist)),
        decode(shared, c.sc_, c.cost_, c.blocks_, c.ep_, c.obs_, signals(c), *io, round_end(c)),
        prefill(shared, c.sc_, c.cost_, c.features_, c.ep_, c.obs_, signals(c), *io, decode),
        reads(shared, c.blocks_, c.totals_, *c.sources_, c.faults_, signals(c), prefill, *c.policy_,
              c.tuning_.reads_in_flight_per_node, static_cast<int>(c.view_.nodes.size())),
        free_reads(c.be_, c.blocks_, c.layout_, c.view_, *c.policy_, prefill),
        placement(shared, c.sc_.deployment.fetch_period, *c.policy_, c.faults_,
                  c.features_.bypass_io ? static_cast<RequestStage&>(free_reads) : reads),
        faults{c.sc_,     c.be_,    c.view_,  c.layout_,  c.requests_, c.accounts_, c.faults_, c.ports_,
               *c.policy_, placement, reads,   prefill,   decode,      persist,     *io,
               [&c](int agent, int round) { c.issue_round(agent, round); },
               [&c] { c.hand_over_settled(); },
               [&c] { return c.handed_; }} {}

  // The Cluster as the stages see it (its bases are private to it).
  static StageSignals& signals(Cluster& c) { return c; }
  static RequestStage& round_end(Cluster& c) { return c; }

  StageShared shared;
  PersistStage persist;
  std::unique_ptr<KvIo> io;  // where KV moves: through the backend (StorageKvIo), or free for the oracle
  DecodeStage decode;
  PrefillStage prefill;
  ReadStage reads;
  FreeReads free_reads;  // the oracle's: nothing is read
  PlacementStage placement;
  FaultScope faults;
};

}  // namespace dualpath
