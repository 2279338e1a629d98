// Lockstep groups (docs/assumptions.md, "Group lockstep" and "EP all-to-all bytes"): the engines of an EP group
// step together, and every step moves its tokens' expert copies between the group's nodes. Prefill stages
// (prefill_stage.cpp) and decode chunks (decode_stage.cpp) both plan and start their all-to-all here.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/metrics/transfer_totals.hpp"

namespace dualpath {

class EpAllToAll {
 public:
  using Flows = std::vector<std::pair<size_t, double>>;  // (engine index in the unit, bytes)
  // `totals`: its bytes are counted in TransferTotals::collective.
  EpAllToAll(Backend& be, TransferTotals& totals, int gpus_per_node)
      : be_(be), totals_(totals), gpus_per_node_(gpus_per_node) {}

  // The all-to-all of one step of a unit (a prefill stage or a decode chunk), as flows from each engine's
  // per-engine load (tokens or batch) x per_load x rdma bytes per token and layer x layers.
  static Flows flows(const std::vector<int>& engines, const std::vector<double>& loads, double per_load, double rdma,
                     int layers);
  // Starts them as one group: `done` once, when the last flow ends. Starts nothing when there are no flows (`done`
  // then never runs: the caller counts the group only when it has flows).
  void start(const std::vector<int>& engines, const Flows& flows, Done done);

 private:
  int cross_node_peer(int gpu, const std::vector<int>& group) const;

  Backend& be_;
  TransferTotals& totals_;
  int gpus_per_node_;
};

}  // namespace dualpath
