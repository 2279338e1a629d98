// `dualpath-split` (issue 20, beyond the paper): dualpath's placement and mechanisms, with a read that may be split
// between the two nodes. The paper reads each request's hit KV through one SNIC and leaves splitting to future work
// (digest §8.1). Here the hit blocks are divided so that both nodes' storage read queues end equally long, i.e.
// both halves finish together when the SNICs read at the same rate: with queues Q_pe, Q_de (tokens) and hit h,
// the PE part is x = (Q_de + h - Q_pe) / 2, clamped to [0, h]; the cluster rounds it down to whole blocks, and a
// split with nothing on one side is a one-sided read. So a request whose DE queue is much longer reads through the
// PE alone, and the other way round (the paper's shorter-queue rule is the limit of large queue differences).
// docs/split-reads.md gives the design, what was tried, and the measurements.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "core/sched/policies/placed_policy.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath {
namespace {

class SplitReadPolicy final : public PlacedPolicy {
 public:
  using PlacedPolicy::PlacedPolicy;

  ReadSide choose_read_side(const ClusterView&, const Request& r) override {
    return f_.dual_path && r.hit > 0 ? ReadSide::Split : ReadSide::Pe;
  }

  int64_t split_pe_tokens(const ClusterView& view, const Request& r) override {
    const auto& pe = view.nodes[view.engines[r.pe].node];
    const auto& de = view.nodes[view.engines[r.de].node];
    const int64_t q_pe = pe.read_queue_tokens, q_de = de.read_queue_tokens;
    if (pe.read_bw == de.read_bw) return std::clamp<int64_t>((q_de + r.hit - q_pe) / 2, 0, r.hit);
    // SNICs of two speeds (mixed hardware): both queues drain together, (q_pe + x) / b_pe = (q_de + hit - x) / b_de.
    const double x = (pe.read_bw * static_cast<double>(q_de + r.hit) - de.read_bw * static_cast<double>(q_pe)) /
                     (pe.read_bw + de.read_bw);
    return std::clamp<int64_t>(static_cast<int64_t>(x), 0, r.hit);
  }
};

}  // namespace

void register_split_read_policy() {
  register_policy("dualpath-split", PolicyFeatures{.layerwise = true, .dual_path = true, .scheduler = true},
                  [](const PolicyFeatures& f) { return std::make_unique<SplitReadPolicy>(f); });
}

}  // namespace dualpath
