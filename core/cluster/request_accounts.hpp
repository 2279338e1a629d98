// The run's accounts of each request: what it waits for, charged over time (the "what binds" report,
// core/metrics/wait_report.hpp), and the DRAM buffer room it holds on each side (node occupancy over time, and who
// holds it). Every stage moves requests between causes and takes or gives back buffer room only here.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/backend/backend.hpp"
#include "core/metrics/wait_report.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"

namespace dualpath {

class RequestAccounts {
 public:
  // `view`: its nodes' buffers are the room taken and given back; `bin_seconds`: the report's time bins.
  RequestAccounts(Backend& be, ClusterView& view, double bin_seconds) : be_(be), view_(view), waits_(bin_seconds) {}

  const WaitTracker& waits() const { return waits_; }

  // Moves a request to a new cause, charging the time since its last change to the old one.
  void set_wait(Request& r, WaitCause c) {
    if (r.wait_cause == WaitCause::Count) return;  // its round is over
    waits_.charge(r.wait_cause, r.wait_since, be_.now());
    for (ReadSide side : kNodeSides)
      waits_.move_holder(side, r.wait_cause, holder_cause(c), r.buffer_bytes[side], be_.now());
    r.wait_cause = c, r.wait_since = be_.now();
  }
  // Charges [since, now) of `requests` requests to `cause` (a read queue charges its entries at once; a lost
  // attempt its last cause).
  void charge(WaitCause cause, double since, double requests = 1) {
    waits_.charge(cause, since, be_.now(), requests);
  }

  // Buffer room on `node` taken or given back for request `r`.
  void reserve_buffer(Request& r, int node, double bytes) { buffer_change(r, node, bytes); }
  void release_buffer(Request& r, int node, double bytes) { buffer_change(r, node, -bytes); }

 private:
  void buffer_change(Request& r, int node, double bytes) {
    auto& b = view_.nodes[node].buffer;
    b.touch(be_.now());
    // Callers admit first (fits), so a refused reservation is a bookkeeping bug, never a silent drop: the request
    // would believe it holds room that the pool does not count.
    if (bytes >= 0 && !b.try_reserve(bytes))
      throw std::logic_error("cluster: DRAM buffer reservation of " + std::to_string(bytes) + " B on node " +
                             std::to_string(node) + " exceeds its free " + std::to_string(b.free()) + " B");
    if (bytes < 0) b.release(-bytes);
    const ReadSide side = view_.nodes[node].prefill ? ReadSide::Pe : ReadSide::De;
    const double before = r.buffer_bytes[side];
    r.buffer_bytes[side] = std::max(0.0, before + bytes);
    waits_.hold(side, holder_cause(r.wait_cause), r.buffer_bytes[side] - before, be_.now());
  }
  // A round that ended at its first token may still hold DE buffer room until its handoff ends.
  static WaitCause holder_cause(WaitCause c) { return c == WaitCause::Count ? WaitCause::Handoff : c; }

  Backend& be_;
  ClusterView& view_;
  WaitTracker waits_;
};

}  // namespace dualpath
