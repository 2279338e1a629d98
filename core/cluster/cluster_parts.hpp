// What the Cluster's stages and fault handlers are built from: the Cluster's own parts (each outlives them), the
// Cluster as the stages see it (where signals go, and the round's end after decode), and its rounds as the fault
// handlers see them. Filled by the Cluster (cluster.cpp), kept by ClusterStages (cluster_stages.hpp) and read by
// the fault handlers through FaultScope (faults/fault_handler.hpp). Private to core/cluster/.
#pragma once

#include <cstddef>
#include <functional>

#include "core/backend/backend.hpp"
#include "core/cluster/buffer_ports.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/ep_all_to_all.hpp"
#include "core/cluster/fault_book.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/policy.hpp"
#include "core/vocab/request.hpp"

namespace dualpath {

struct ClusterParts {
  const Scenario& scenario;
  Backend& be;
  ActivityObserver* const& obs;
  const CostModel& cost;         // the prefill engines' (Scenario::pe_topology)
  const CostModel& decode_cost;  // the decode engines' (Scenario::de_topology)
  Policy& policy;
  const PolicyFeatures& features;
  ClusterView& view;
  const ClusterLayout& layout;
  BlockIndex& blocks;
  RequestLog& requests;
  TransferTotals& totals;
  RequestAccounts& accounts;
  EpAllToAll& ep;
  BufferPorts& ports;
  KvSources& sources;
  FaultBook& faults;
  int reads_in_flight_per_node;  // ClusterTuning
  double persist_flush_bytes;    // ClusterTuning
  StageSignals& signals;
  RequestStage& round_end;
  std::function<void(int agent, int round)> restart_round;
  std::function<void()> hand_over_settled;
  std::function<size_t()> first_unsettled;
};

}  // namespace dualpath
