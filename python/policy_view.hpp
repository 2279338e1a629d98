// What a Python policy reads during a decision: the scheduler's ClusterView, its engines and nodes, and the
// request being decided on, handed to Python as handles, not as the C++ objects (issue 80). Each handle holds the
// decision's lease; when the decision returns the lease ends, and any later use of the handle (a policy that kept
// the view in self for its next call, or read it after the run) raises dualpath.PolicyError naming the object and
// the decision that handed it out, where a bare reference would read freed memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "core/sched/cluster_view.hpp"
#include "core/vocab/request.hpp"

namespace dualpath::python {

// A policy's leases: one per policy object, shared with every handle it gave out. A handle is valid while the
// generation it was made in is the current one; each decision that ends starts the next (so a decision costs no
// allocation of its own).
struct Lease {
  std::string policy;
  uint64_t generation = 0;
};

// One decision's lease: the handles it makes are valid until it is destroyed (the decision returned or threw).
class DecisionLease {
 public:
  DecisionLease(const std::shared_ptr<Lease>& lease, const char* decision)
      : lease_(lease), decision_(decision), generation_(lease->generation) {}
  ~DecisionLease() { ++lease_->generation; }
  DecisionLease(const DecisionLease&) = delete;
  DecisionLease& operator=(const DecisionLease&) = delete;
  pybind11::object view(const ClusterView& v) const;
  pybind11::object request(const Request& r) const;

 private:
  const std::shared_ptr<Lease>& lease_;
  const char* decision_;  // a string literal: the decision's name
  uint64_t generation_;
};

// The handle types (ClusterView, EngineState, NodeState, Request) and QueuedRequest (a copy), bound into `m`.
void bind_policy_view_types(pybind11::module_& m);

}  // namespace dualpath::python
