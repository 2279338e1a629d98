// The paper's policies: `dualpath` (all mechanisms), `basic` (PE-only reads, no layerwise prefill, round-robin
// placement) and `oracle` (dualpath with all KV I/O bypassed). They share one composition, driven by the
// features: the scheduler feature picks the placement (SchedulerPlacement or RoundRobinPlacement) and, with
// dual-path loading on, the read-side rule (queue-aware with the scheduler, alternating without). So each
// ablation step is a toggle, e.g. basic + layerwise + dual_path is the paper's third step (both read paths,
// chosen by alternation) and dualpath adds the scheduler.
#include <cstdint>
#include <memory>

#include "core/mutation/mutant.hpp"
#include "core/sched/policies/placed_policy.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath {
namespace {

class PaperPolicy final : public PlacedPolicy {
 public:
  using PlacedPolicy::PlacedPolicy;

  ReadSide choose_read_side(const ClusterView& view, const Request& r) override {
    if (!f_.dual_path || mutant("no_de_read")) return ReadSide::Pe;
    // Dual-path loading without the scheduler (the paper's third ablation step): both paths are used, but the
    // choice does not look at queues; requests alternate between the PE and DE side.
    if (!f_.scheduler) return (alternate_++ % 2 == 0) ? ReadSide::Pe : ReadSide::De;
    // §6.1: read on the side whose node has the shorter storage read queue (ties go to the PE); with SNICs of two
    // speeds (mixed hardware) the queue that drains first.
    const auto& pe_node = view.nodes[view.engines[r.pe].node];
    const auto& de_node = view.nodes[view.engines[r.de].node];
    return read_queue_drains_first(de_node, pe_node) ? ReadSide::De : ReadSide::Pe;
  }

 private:
  uint64_t alternate_ = 0;  // read-side alternation without the scheduler
};

std::unique_ptr<Policy> make_paper_policy(const PolicyFeatures& f) { return std::make_unique<PaperPolicy>(f); }

}  // namespace

void register_paper_policies() {
  register_policy("dualpath", PolicyFeatures{.layerwise = true, .dual_path = true, .scheduler = true},
                  make_paper_policy);
  // basic: none of them (PE-side reads, the batch's whole KV in HBM, round-robin placement)
  register_policy("basic", PolicyFeatures{}, make_paper_policy);
  register_policy("oracle",
                  PolicyFeatures{.layerwise = true, .dual_path = true, .scheduler = true, .bypass_io = true},
                  make_paper_policy);
}

}  // namespace dualpath
