// The paper's policies as one configurable policy: `dualpath` (all mechanisms), `basic` (PE-only reads, no
// layerwise prefill, round-robin placement) and `oracle` (dualpath with all KV I/O bypassed). Each ablation
// step is a toggle of PolicyFeatures, so e.g. basic + layerwise + dual_path is the paper's third ablation step
// (both read paths, chosen by alternation) and dualpath adds the scheduler (Algorithm 1, two-level DE selection
// and the queue-aware read-path choice).
#include <cstdint>
#include <map>

#include "core/sched/de_selection.hpp"
#include "core/sched/pe_selection.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {
namespace {

class StandardPolicy final : public Policy {
 public:
  explicit StandardPolicy(const PolicyFeatures& f) : f_(f) {}
  PolicyFeatures features() const override { return f_; }

  std::vector<Placement> place_prefill(const ClusterView& view, int group,
                                       const std::deque<QueuedRequest>& waiting) override {
    if (f_.scheduler) return select_prefill_engines(view, view.pe_groups[group], waiting);
    return round_robin(view.pe_groups, group, waiting, rr_pe_);
  }

  std::vector<int> route_decode(const ClusterView& view, const std::deque<QueuedRequest>& global) override {
    if (f_.scheduler) {
      std::vector<int64_t> queued(view.de_groups.size(), 0);
      for (auto& [g, t] : queued_tokens_) queued[g] = t;
      auto routes = route_to_decode_groups(view, global, queued);
      for (size_t i = 0; i < routes.size(); ++i) queued_tokens_[routes[i]] += global[i].tokens;
      return routes;
    }
    // Round-robin: route to the group of the next engine in global order, remembered per request.
    std::vector<int> routes;
    for (const auto& r : global) {
      const int engine = next_engine(view.de_groups, rr_de_);
      rr_target_[r.id] = engine;
      routes.push_back(view.engines[engine].group);
    }
    return routes;
  }

  std::vector<Placement> place_decode(const ClusterView& view, int group,
                                      const std::deque<QueuedRequest>& queue) override {
    if (f_.scheduler) {
      auto out = select_decode_engines(view, view.de_groups[group], queue);
      for (const auto& p : out) queued_tokens_[group] -= queue[p.index].tokens;
      return out;
    }
    // Round-robin keeps its target; a request waits (FIFO) until that engine has HBM room.
    std::vector<Placement> out;
    std::vector<double> free;
    for (size_t q = 0; q < queue.size(); ++q) {
      const int e = rr_target_.at(queue[q].id);
      if (view.engines[e].hbm.free() - taken_[e] < queue[q].hbm_need) break;
      taken_[e] += queue[q].hbm_need;
      out.push_back({q, e});
    }
    for (const auto& p : out) rr_target_.erase(queue[p.index].id);
    taken_.clear();
    return out;
  }

  ReadSide choose_read_side(const ClusterView& view, const Request& r) override {
    if (!f_.dual_path || mutant("no_de_read")) return ReadSide::Pe;
    // Dual-path loading without the scheduler (the paper's third ablation step): both paths are used, but the
    // choice does not look at queues; requests alternate between the PE and DE side.
    if (!f_.scheduler) return (alternate_++ % 2 == 0) ? ReadSide::Pe : ReadSide::De;
    // §6.1: read on the side whose node has the shorter storage read queue (ties go to the PE).
    const auto& pe_node = view.nodes[view.engines[r.pe].node];
    const auto& de_node = view.nodes[view.engines[r.de].node];
    return de_node.read_queue_tokens < pe_node.read_queue_tokens ? ReadSide::De : ReadSide::Pe;
  }

 private:
  static int next_engine(const std::vector<std::vector<int>>& groups, size_t& cursor) {
    size_t total = 0;
    for (const auto& g : groups) total += g.size();
    size_t k = mutant("basic_no_round_robin") ? 0 : cursor++ % total;
    for (const auto& g : groups) {
      if (k < g.size()) return g[k];
      k -= g.size();
    }
    return groups.front().front();
  }
  // Round-robin prefill placement over all engines: each request's target engine is fixed the first time a
  // fetch sees it; a group's fetch takes the requests targeted at its engines.
  std::vector<Placement> round_robin(const std::vector<std::vector<int>>& groups, int group,
                                     const std::deque<QueuedRequest>& waiting, size_t& cursor) {
    std::vector<Placement> out;
    for (size_t q = 0; q < waiting.size(); ++q) {
      auto it = rr_target_pe_.find(waiting[q].id);
      if (it == rr_target_pe_.end()) it = rr_target_pe_.emplace(waiting[q].id, next_engine(groups, cursor)).first;
      const int e = it->second;
      bool mine = false;
      for (int x : groups[group]) mine |= (x == e);
      if (mine) {
        out.push_back({q, e});
        rr_target_pe_.erase(it);
      }
    }
    return out;
  }

  PolicyFeatures f_;
  size_t rr_pe_ = 0, rr_de_ = 0;
  uint64_t alternate_ = 0;  // read-side alternation without the scheduler
  std::map<int64_t, int> rr_target_pe_, rr_target_;
  std::map<int, double> taken_;
  std::map<int, int64_t> queued_tokens_;
};

std::unique_ptr<Policy> make_standard(const PolicyFeatures& f) { return std::make_unique<StandardPolicy>(f); }

}  // namespace

void register_standard_policies() {
  register_policy("dualpath", PolicyFeatures{true, true, true, false}, make_standard);
  register_policy("basic", PolicyFeatures{false, false, false, false}, make_standard);
  register_policy("oracle", PolicyFeatures{true, true, true, true}, make_standard);
}

}  // namespace dualpath
