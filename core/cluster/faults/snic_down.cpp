// snic-down (FaultEffect::SnicDown): a node's storage NIC carries nothing until `until`. Storage I/O in flight on it
// fails; a read queued or failed there goes to the other read path when the policy has one and that side's SNIC is
// up (DualPath's second path is its resilience); a policy without the DE read path (Basic) puts the request back
// in the PE waiting queue, and prefill engines whose node cannot read take no new requests; otherwise the read
// waits in its node's queue until the SNIC is back. A persistence write on a down SNIC waits for it; one that the
// fault failed is written again, whole.
#include <sstream>

#include "core/backend/run_errors.hpp"
#include "core/cluster/faults/fault_handler.hpp"

namespace dualpath {

namespace {

class SnicDown final : public FaultHandler {
 public:
  void begins(FaultScope& s, size_t i) override {
    FaultRecord& rec = s.cluster.faults[i];
    const int node = rec.spec.node;
    s.cluster.view.nodes[node].snic_up = false;
    s.placement.on_snic_change(node);
    if (s.cluster.policy.other_read_side(ReadSide::Pe) == ReadSide::Unset) check_some_pe_reads(s, i);
    const std::string why = "the storage NIC of node " + std::to_string(node) + " is down (fault " +
                            std::to_string(i) + ", snic-down at " + std::to_string(rec.started) + " s)";
    s.cluster.be.fail_storage_io(node, why);  // their failure callbacks run next, from the event loop
    s.reads.on_snic_down(node, i);
  }

  void ends(FaultScope& s, size_t i) override {
    const int node = s.cluster.faults[i].spec.node;
    if (s.cluster.faults.down_fault(node) >= 0) return;  // another snic-down still holds it down
    s.cluster.view.nodes[node].snic_up = true;
    s.placement.on_snic_change(node);
    s.persist.on_snic_back(node);
    s.reads.on_snic_back(node);
    s.placement.arm_fetches();  // PE groups that could not read take requests again
  }

 private:
  // A policy that reads only through prefill-node SNICs needs one that can read now or later: up, or held down
  // only by snic-downs with an `until`.
  static void check_some_pe_reads(FaultScope& s, size_t i) {
    bool can_read_later = false;
    for (size_t n = 0; n < s.cluster.view.nodes.size(); ++n) {
      if (!s.cluster.view.nodes[n].prefill) continue;
      bool forever = false;
      for (const FaultRecord& r : s.cluster.faults.records())
        forever = forever || (holds_snic_down(r.spec.kind) && r.spec.node == static_cast<int>(n) && r.started >= 0 &&
                              r.ended < 0 && r.spec.until < 0);
      can_read_later = can_read_later || !forever;
    }
    if (can_read_later) return;
    const FaultRecord& rec = s.cluster.faults[i];
    std::ostringstream m;
    m << "fault " << i << " (snic-down on node " << rec.spec.node << " at " << rec.started << " s): policy "
      << s.cluster.scenario.policy.name << " reads hit KV only through prefill-node SNICs, and every one of them is now "
      << "down for good, so no further round can load its KV (a policy with the DE read path, e.g. dualpath, reads "
      << "through the decode nodes; or give the fault an `until`)";
    throw NoProgressError(m.str());
  }
};

}  // namespace

std::unique_ptr<FaultHandler> make_snic_down_handler() { return std::make_unique<SnicDown>(); }

}  // namespace dualpath
