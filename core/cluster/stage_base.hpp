// What every stage of a round reads or changes: the backend (the clock, transfers, compute), the run's requests,
// the cluster view (nodes and engines), the layout and the requests' accounts (waits and buffer room). The stages
// take it first and keep it in their StageBase; anything else a stage touches is named in its own constructor.
#pragma once

#include "core/backend/backend.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

struct StageShared {
  Backend& be;
  RequestLog& requests;
  ClusterView& view;
  const ClusterLayout& layout;
  RequestAccounts& accounts;
};

class StageBase {
 protected:
  explicit StageBase(const StageShared& s)
      : be_(s.be), requests_(s.requests), view_(s.view), layout_(s.layout), accounts_(s.accounts) {}

  Backend& be_;
  RequestLog& requests_;
  ClusterView& view_;
  const ClusterLayout& layout_;
  RequestAccounts& accounts_;
};

}  // namespace dualpath
