#include "sim/maxmin.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dualpath::sim {

MaxMin::MaxMin(std::vector<double> capacity) : links_(capacity.size()) {
  for (size_t i = 0; i < capacity.size(); ++i) {
    if (!(capacity[i] > 0)) throw std::invalid_argument("maxmin: link capacities must be > 0");
    links_[i].capacity = capacity[i];
  }
}

void MaxMin::touch_link(int link) {
  LinkRec& l = links_[static_cast<size_t>(link)];
  if (!l.dirty) {
    l.dirty = true;
    dirty_links_.push_back(link);
  }
}

// Adds (delta +1) or removes (-1) flow f in link's B_l bookkeeping and recomputes B_l.
void MaxMin::count_group(int link, const FlowRec& f, int delta) {
  LinkRec& l = links_[static_cast<size_t>(link)];
  if (f.narrowest == link) {
    l.self += delta;
  } else {
    auto it = std::find_if(l.groups.begin(), l.groups.end(), [&f](const auto& g) { return g.first == f.narrowest; });
    if (it == l.groups.end()) {
      l.groups.emplace_back(f.narrowest, delta);
    } else if ((it->second += delta) == 0) {
      *it = l.groups.back();
      l.groups.pop_back();
    }
  }
  double b = l.self * l.capacity;
  for (const auto& g : l.groups) b += links_[static_cast<size_t>(g.first)].capacity;
  l.load_bound = b;
}

// A link binds when it has two or more flows and B_l > C_l. A link whose status flips is touched, so its flows
// are re-solved with or without it; a binding link whose flow set changed is touched by the caller.
void MaxMin::update_binding(int link) {
  LinkRec& l = links_[static_cast<size_t>(link)];
  const bool binding = l.flows.size() >= 2 && l.load_bound > l.capacity;
  if (binding == l.binding) return;
  l.binding = binding;
  if (!binding && l.active) {  // it leaves the constraint set: its flows are re-solved without it
    l.active = false;
    touch_link(link);
  }
  // A link that may now bind starts inactive; the flow that made it so is new, hence re-solved, and the link is
  // checked after the solve.
}

int MaxMin::add(const int32_t* links, int n, double weight) {
  if (!(weight > 0)) throw std::invalid_argument("maxmin: flow weights must be > 0");
  if (n <= 0) throw std::invalid_argument("maxmin: a flow must cross at least one link");
  int id;
  if (free_.empty()) {
    id = static_cast<int>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  FlowRec& f = flows_[static_cast<size_t>(id)];
  f.links = links;
  f.n = n;
  f.weight = weight;
  f.rate = 0;
  f.narrowest = links[0];
  for (int k = 1; k < n; ++k)
    if (links_[static_cast<size_t>(links[k])].capacity < links_[static_cast<size_t>(f.narrowest)].capacity)
      f.narrowest = links[k];
  f.bound = links_[static_cast<size_t>(f.narrowest)].capacity;
  for (int k = 0; k < n; ++k) {
    LinkRec& l = links_[static_cast<size_t>(links[k])];
    l.flows.push_back(id);
    count_group(links[k], f, +1);
    update_binding(links[k]);
    if (l.active) touch_link(links[k]);
  }
  f.dirty = true;
  dirty_flows_.push_back(id);
  return id;
}

void MaxMin::remove(int id) {
  FlowRec& f = flows_[static_cast<size_t>(id)];
  for (int k = 0; k < f.n; ++k) {
    LinkRec& l = links_[static_cast<size_t>(f.links[k])];
    auto it = std::find(l.flows.begin(), l.flows.end(), id);
    if (it != l.flows.end()) {
      *it = l.flows.back();
      l.flows.pop_back();
    }
    count_group(f.links[k], f, -1);
    if (l.active) touch_link(f.links[k]);  // its other flows gain the capacity this one leaves
    update_binding(f.links[k]);
  }
  f.links = nullptr;
  f.n = 0;
  if (f.dirty) {  // added and removed between two solves
    f.dirty = false;
    dirty_flows_.erase(std::find(dirty_flows_.begin(), dirty_flows_.end(), id));
  }
  free_.push_back(id);
}

// Adds `flow` and everything reachable from it through active links to the component being collected.
void MaxMin::visit(int flow) {
  if (flows_[static_cast<size_t>(flow)].mark == epoch_) return;
  flows_[static_cast<size_t>(flow)].mark = epoch_;
  stack_.push_back(flow);
  while (!stack_.empty()) {
    const int fi = stack_.back();
    stack_.pop_back();
    comp_flows_.push_back(fi);
    const FlowRec& f = flows_[static_cast<size_t>(fi)];
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      if (!l.active || l.mark == epoch_) continue;
      l.mark = epoch_;
      comp_links_.push_back(f.links[k]);
      for (int gi : l.flows) {
        FlowRec& g = flows_[static_cast<size_t>(gi)];
        if (g.mark == epoch_) continue;
        g.mark = epoch_;
        stack_.push_back(gi);
      }
    }
  }
}

void MaxMin::solve() {
  changed_.clear();
  ++solve_id_;
  bool first = true;
  while (!dirty_links_.empty() || !dirty_flows_.empty()) {
    solve_pass(first);
    first = false;
  }
}

// One pass of the active-set method: solve the changed components with the active links, then drop the active
// links left with slack (first pass only, so passes cannot cycle) and activate, for the next pass, every
// inactive link that may bind and that the new rates overload.
void MaxMin::solve_pass(bool first) {
  comp_links_.clear();
  comp_flows_.clear();
  // The components of what changed: new flows, and every flow of a touched link.
  ++epoch_;
  for (int fi : dirty_flows_) {
    flows_[static_cast<size_t>(fi)].dirty = false;
    visit(fi);
  }
  dirty_flows_.clear();
  for (int li : dirty_links_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    l.dirty = false;
    for (int fi : l.flows) visit(fi);
  }
  dirty_links_.clear();
  fill();
  for (int fi : comp_flows_) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    if (f.solve_mark != solve_id_) {
      f.solve_mark = solve_id_;
      changed_.push_back(fi);
    }
  }
  if (first)
    for (int li : comp_links_) {
      LinkRec& l = links_[static_cast<size_t>(li)];
      if (l.remaining > kSlack * l.capacity) l.active = false;
    }
  for (int fi : comp_flows_) {
    const FlowRec& f = flows_[static_cast<size_t>(fi)];
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      if (!l.binding || l.active || l.checked == epoch_) continue;
      l.checked = epoch_;
      double load = 0;
      for (int gi : l.flows) load += flows_[static_cast<size_t>(gi)].rate;
      if (load > l.capacity * (1 + kOverload)) {
        l.active = true;
        touch_link(f.links[k]);
      }
    }
  }
}

void MaxMin::fill() {
  // Progressive filling over those components: binding links and the flows' own bounds.
  cand_.clear();
  levels_.clear();
  for (int li : comp_links_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    l.remaining = l.capacity;
    l.weight = 0;
    l.unfixed = 0;
  }
  for (int fi : comp_flows_) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.rate = -1;
    f.slot = static_cast<int>(cand_.size());
    cand_.push_back(-(fi + 1));
    levels_.push_back(f.bound / f.weight);
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      if (!l.active) continue;
      l.weight += f.weight;
      ++l.unfixed;
    }
  }
  for (int li : comp_links_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    l.slot = static_cast<int>(cand_.size());
    cand_.push_back(li);
    levels_.push_back(l.remaining / l.weight);
  }
  auto drop = [this](size_t slot) {  // swap-remove constraint `slot` from the scan
    cand_[slot] = cand_.back();
    levels_[slot] = levels_.back();
    const int moved = cand_[slot];
    if (moved >= 0) links_[static_cast<size_t>(moved)].slot = static_cast<int>(slot);
    else flows_[static_cast<size_t>(-moved - 1)].slot = static_cast<int>(slot);
    cand_.pop_back();
    levels_.pop_back();
  };
  auto fix = [this, &drop](int fi, double level) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.rate = std::min(level * f.weight, f.bound);
    drop(static_cast<size_t>(f.slot));
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      if (!l.active) continue;
      l.remaining -= f.rate;
      // Re-zero when the last flow leaves so a rounding residue cannot make a level out of nothing.
      if (--l.unfixed == 0) {
        l.weight = 0;
        drop(static_cast<size_t>(l.slot));
      } else {
        l.weight -= f.weight;
        levels_[static_cast<size_t>(l.slot)] = (l.remaining > 0 ? l.remaining : 0) / l.weight;
      }
    }
  };
  // Ties between equal levels go to the constraint first in cand_ order, which only decides the order in which
  // equal levels are fixed.
  while (!cand_.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < levels_.size(); ++i)
      if (levels_[i] < levels_[best]) best = i;
    const double level = levels_[best];
    const int c = cand_[best];
    if (c < 0) {
      fix(-c - 1, level);
      continue;
    }
    // Copy: fixing flows edits cand_, not the link's flow list, but keep the loop independent of that.
    for (int fi : links_[static_cast<size_t>(c)].flows)
      if (flows_[static_cast<size_t>(fi)].rate < 0) fix(fi, level);
  }
}

}  // namespace dualpath::sim
