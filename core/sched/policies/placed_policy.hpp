// What the built-in policies share: their mechanisms (features) and the placement the scheduler toggle picks,
// SchedulerPlacement (Algorithm 1 and the two-level DE selection) with it, RoundRobinPlacement without. A policy
// deriving from it adds only its read-side rule.
#pragma once

#include <memory>

#include "core/sched/policies/round_robin_placement.hpp"
#include "core/sched/policies/scheduler_placement.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

class PlacedPolicy : public Policy {
 public:
  explicit PlacedPolicy(const PolicyFeatures& f) : f_(f) {
    if (f.scheduler) placement_ = std::make_unique<SchedulerPlacement>();
    else placement_ = std::make_unique<RoundRobinPlacement>();
  }
  PolicyFeatures features() const override { return f_; }
  EnginePlacement& placement() override { return *placement_; }

 protected:
  PolicyFeatures f_;

 private:
  std::unique_ptr<EnginePlacement> placement_;
};

// A policy whose hits are read through the PE node only (dram-pool and the shipped baselines de-prefetch and
// pe-pull-from-de): everything it adds is a mechanism its features switch on.
class PeReadsPolicy final : public PlacedPolicy {
 public:
  using PlacedPolicy::PlacedPolicy;
  ReadSide choose_read_side(const ClusterView&, const Request&) override { return ReadSide::Pe; }
};

inline std::unique_ptr<Policy> make_pe_reads_policy(const PolicyFeatures& f) {
  return std::make_unique<PeReadsPolicy>(f);
}

}  // namespace dualpath
