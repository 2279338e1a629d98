#include "sim/native/maxmin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace dualpath::sim {

MaxMin::MaxMin(std::vector<double> capacity, Options options)
    : links_(capacity.size()),
      sets_(capacity.size()),
      track_lowest_(options.track_lowest),
      keep_below_departures_(options.keep_below_departures),
      keep_below_arrivals_(options.keep_below_arrivals),
      departed_level_(std::numeric_limits<double>::infinity()) {
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

// Adds (delta +1) or removes (-1) flow f in link's B_l bookkeeping and recomputes B_l when it changes: B_l counts
// each other narrowest link once, so a flow joining or leaving a group that stays changes nothing.
void MaxMin::count_group(int link, const FlowRec& f, int delta) {
  LinkSet& l = sets_[static_cast<size_t>(link)];
  if (f.narrowest == link) {
    l.self += delta;
  } else {
    auto it = std::find_if(l.groups.begin(), l.groups.end(), [&f](const auto& g) { return g.first == f.narrowest; });
    if (it == l.groups.end()) {
      l.groups.emplace_back(f.narrowest, delta);
    } else if ((it->second += delta) == 0) {
      *it = l.groups.back();
      l.groups.pop_back();
    } else {
      return;
    }
  }
  double b = l.self * links_[static_cast<size_t>(link)].capacity;
  for (const auto& g : l.groups) b += links_[static_cast<size_t>(g.first)].capacity;
  l.load_bound = b;
}

// A link binds when it has two or more flows and B_l > C_l. A link whose status flips is touched, so its flows
// are re-solved with or without it; a binding link whose flow set changed is touched by the caller.
void MaxMin::update_binding(int link) {
  LinkRec& l = links_[static_cast<size_t>(link)];
  const LinkSet& set = sets_[static_cast<size_t>(link)];
  const bool binding = set.flows.size() >= 2 && set.load_bound > l.capacity;
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
  if (n <= 0 || n > kMaxLinks) throw std::invalid_argument("maxmin: a flow must cross 1 to kMaxLinks links");
  int id;
  if (free_.empty()) {
    id = static_cast<int>(flows_.size());
    flows_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  arrived_ = true;
  FlowRec& f = flows_[static_cast<size_t>(id)];
  f.fresh = true;
  std::copy(links, links + n, f.links.begin());
  f.n = n;
  f.weight = weight;
  f.rate = 0;
  f.prev = 0;
  f.narrowest = links[0];
  for (int k = 1; k < n; ++k)
    if (links_[static_cast<size_t>(links[k])].capacity < links_[static_cast<size_t>(f.narrowest)].capacity)
      f.narrowest = links[k];
  f.bound = links_[static_cast<size_t>(f.narrowest)].capacity;
  for (int k = 0; k < n; ++k) {
    LinkRec& l = links_[static_cast<size_t>(links[k])];
    std::vector<int>& on = sets_[static_cast<size_t>(links[k])].flows;
    f.slot[static_cast<size_t>(k)] = static_cast<int32_t>(on.size());
    on.push_back(id);
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
  departed_level_ = std::min(departed_level_, f.rate / f.weight);  // 0 for a flow never solved: nothing is kept
  for (int k = 0; k < f.n; ++k) {
    LinkRec& l = links_[static_cast<size_t>(f.links[k])];
    // Out of the link's list by its slot there; the last flow of the list takes it (and learns its new slot).
    std::vector<int>& on = sets_[static_cast<size_t>(f.links[k])].flows;
    const int32_t slot = f.slot[static_cast<size_t>(k)];
    const int last = on.back();
    on[static_cast<size_t>(slot)] = last;
    on.pop_back();
    if (last != id) {
      FlowRec& g = flows_[static_cast<size_t>(last)];
      for (int j = 0; j < g.n; ++j)
        if (g.links[static_cast<size_t>(j)] == f.links[k]) g.slot[static_cast<size_t>(j)] = slot;
    }
    count_group(f.links[k], f, -1);
    l.load = on.empty() ? 0 : l.load - f.rate;
    ++l.updates;  // counts toward the re-sum that bounds rounding drift, as fill()'s updates do
    if (l.active) touch_link(f.links[k]);  // its other flows gain the capacity this one leaves
    update_binding(f.links[k]);
  }
  f.n = 0;
  if (f.dirty) {  // added and removed between two solves
    f.dirty = false;
    dirty_flows_.erase(std::find(dirty_flows_.begin(), dirty_flows_.end(), id));
  }
  free_.push_back(id);
}

void MaxMin::set_capacity(int link, double capacity) {
  if (!(capacity > 0)) throw std::invalid_argument("maxmin: link capacities must be > 0");
  LinkRec& l = links_[static_cast<size_t>(link)];
  if (capacity == l.capacity) return;
  capacity_changed_ = true;
  // Only flows crossing this link can have it as their narrowest link, so only their bounds, and the B_l of the
  // links they cross, depend on its capacity: take them out of that bookkeeping and put them back.
  const std::vector<int> on = sets_[static_cast<size_t>(link)].flows;
  for (int fi : on) {
    const FlowRec& f = flows_[static_cast<size_t>(fi)];
    for (int k = 0; k < f.n; ++k) count_group(f.links[k], f, -1);
  }
  l.capacity = capacity;
  for (int fi : on) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.narrowest = f.links[0];
    for (int k = 1; k < f.n; ++k)
      if (links_[static_cast<size_t>(f.links[k])].capacity < links_[static_cast<size_t>(f.narrowest)].capacity)
        f.narrowest = f.links[k];
    f.bound = links_[static_cast<size_t>(f.narrowest)].capacity;
    for (int k = 0; k < f.n; ++k) count_group(f.links[k], f, +1);
  }
  for (int fi : on) {
    const FlowRec& f = flows_[static_cast<size_t>(fi)];
    for (int k = 0; k < f.n; ++k) update_binding(f.links[k]);
  }
  update_binding(link);
  touch_link(link);  // its flows are re-solved (whether it is an active constraint or not)
}

// Adds `flow` and everything reachable from it through active links to the component being collected, except
// the flows below level `keep_below` (kept at their rates, which are summed into each collected link's `kept`).
void MaxMin::visit(int flow, double keep_below) {
  const auto kept = [keep_below](const FlowRec& g) { return !g.fresh && g.rate < keep_below * g.weight; };
  FlowRec& start = flows_[static_cast<size_t>(flow)];
  if (start.mark == epoch_ || kept(start)) return;
  start.mark = epoch_;
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
      l.kept = 0;
      comp_links_.push_back(f.links[k]);
      for (int gi : sets_[static_cast<size_t>(f.links[k])].flows) {
        FlowRec& g = flows_[static_cast<size_t>(gi)];
        if (g.mark == epoch_) continue;
        if (kept(g)) {
          l.kept += g.rate;
          continue;
        }
        g.mark = epoch_;
        stack_.push_back(gi);
      }
    }
  }
}

void MaxMin::solve() {
  changed_.clear();
  ++solve_id_;
  // The flows below the lowest departed level, and below the first saturation of a new flow's link, keep their
  // rates (maxmin.hpp). The margin keeps a flow level with that threshold (a tie, up to rounding) among those
  // re-filled. Without a departure or an arrival to bound it (a capacity change, or a mode off), nothing is kept.
  double keep_below = 0;
  if (!capacity_changed_ && (arrived_ ? keep_below_arrivals_ : keep_below_departures_)) {
    const double t = arrived_ ? std::min(departed_level_, arrival_threshold()) : departed_level_;
    if (!std::isnan(t) && (arrived_ || std::isfinite(t))) keep_below = t * (1 - 1e-9);
  }
  departed_level_ = std::numeric_limits<double>::infinity();
  arrived_ = false;
  capacity_changed_ = false;
  bool first = true;
  while (!dirty_links_.empty() || !dirty_flows_.empty()) {
    solve_pass(first, keep_below);
    first = false;
    // Links that join the constraint set are re-solved whole, or (with keep_below_arrivals) above the level at
    // which the first of them saturates under the pass's rates: a constraint added to a solved system changes
    // progressive filling only from there on, as a new flow's load does (maxmin.hpp).
    keep_below = 0;
    if (keep_below_arrivals_) {
      double t = std::numeric_limits<double>::infinity();
      for (int li : joined_) t = std::min(t, saturation_level(li));
      if (std::isfinite(t)) keep_below = t * (1 - 1e-9);
    }
  }
}

// One pass of the active-set method: solve the changed components with the active links, then drop the active
// links left with slack (first pass only, so passes cannot cycle) and activate, for the next pass, every
// inactive link that may bind and that the new rates overload.
void MaxMin::solve_pass(bool first, double keep_below) {
  comp_links_.clear();
  comp_flows_.clear();
  joined_.clear();
  // The components of what changed: new flows, and every flow of a touched link.
  ++epoch_;
  for (int fi : dirty_flows_) {
    flows_[static_cast<size_t>(fi)].dirty = false;
    visit(fi, keep_below);
  }
  dirty_flows_.clear();
  for (int li : dirty_links_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    l.dirty = false;
    for (int fi : sets_[static_cast<size_t>(li)].flows) visit(fi, keep_below);
  }
  dirty_links_.clear();
  fill();
  for (int fi : comp_flows_) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.fresh = false;
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
  // fill() listed the inactive links that may bind on the re-solved flows' routes (no other link's load moved).
  for (int li : check_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    if (l.active || l.load <= l.capacity * (1 + kOverload - kNear)) continue;
    l.load = exact_load(li);
    l.updates = 0;
    if (l.load > l.capacity * (1 + kOverload)) {
      l.active = true;
      touch_link(li);
      joined_.push_back(li);
    }
  }
}

// The lowest level at which an active link crossed by a flow added since the last solve saturates (+inf if none
// can): the flows fixed below it keep their rates (maxmin.hpp, "Arrivals re-fill only above their first
// saturation"). Inactive links are not constraints of the first pass; one the new flows overload joins the set
// after it, and the next pass keeps what lies below that link's own saturation level (solve()).
double MaxMin::arrival_threshold() {
  double t = std::numeric_limits<double>::infinity();
  for (int fi : dirty_flows_) {
    const FlowRec& f = flows_[static_cast<size_t>(fi)];
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      if (!l.active || l.crossed == solve_id_) continue;
      l.crossed = solve_id_;
      t = std::min(t, saturation_level(f.links[k]));
    }
  }
  return t;
}

// The least x with F(x) = sum over the link's flows of min(x w, r) >= C, where r is an old flow's rate and a new
// flow's bound: F is piecewise linear and increasing, so walk its breakpoints (the flows' levels r / w) upwards.
double MaxMin::saturation_level(int link) {
  const double capacity = links_[static_cast<size_t>(link)].capacity;
  levels_.clear();
  double rising = 0;  // the weight of the flows not yet fixed at x
  for (int gi : sets_[static_cast<size_t>(link)].flows) {
    const FlowRec& g = flows_[static_cast<size_t>(gi)];
    levels_.emplace_back((g.fresh ? g.bound : g.rate) / g.weight, gi);
    rising += g.weight;
  }
  std::sort(levels_.begin(), levels_.end());
  double fixed = 0;  // the rates of the flows fixed below x
  for (const auto& [level, gi] : levels_) {
    if (fixed + level * rising >= capacity) return (capacity - fixed) / rising;
    const FlowRec& g = flows_[static_cast<size_t>(gi)];
    fixed += g.fresh ? g.bound : g.rate;
    rising -= g.weight;
  }
  return std::numeric_limits<double>::infinity();  // every flow stops below the capacity: it never saturates
}

double MaxMin::exact_load(int link) const {
  double load = 0;
  for (int gi : sets_[static_cast<size_t>(link)].flows) {
    const FlowRec& g = flows_[static_cast<size_t>(gi)];
    load += g.rate < 0 ? g.prev : g.rate;  // during fill(), an unfixed flow still counts at its previous rate
  }
  return load;
}

namespace {

// The first slot of the lowest of `v`, and that level (+inf if empty).
size_t scan_lowest(const std::vector<double>& v, double& level) {
  double m = std::numeric_limits<double>::infinity();
  size_t at = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] < m) m = v[i], at = i;
  level = m;
  return at;
}

}  // namespace

// Keeps (lowest_level_, lowest_slot_) the least (level, slot) of the links in the scan while the lowest link's
// own level does not rise: another link can only take its place by falling below it (or level with it at an
// earlier slot).
void MaxMin::set_level(size_t slot, double level) {
  const bool rose = level > link_levels_[slot];
  link_levels_[slot] = level;
  if (lowest_stale_) return;
  if (slot == lowest_slot_) {
    if (rose || !track_lowest_) lowest_stale_ = true;
    else lowest_level_ = level;
  } else if (level < lowest_level_ || (level == lowest_level_ && slot < lowest_slot_)) {
    lowest_slot_ = slot, lowest_level_ = level;
  }
}

void MaxMin::fill() {
  // Progressive filling over those components: binding links and the flows' own bounds. A flow's bound has a
  // fixed level (bound / weight), so the flows are sorted by it once and taken in that order; only the links'
  // levels move as flows are fixed, and they are few (the active links of the components), so they are scanned.
  // A flow that crosses an active link no wider than its bound needs no bound of its own: that link's constraint
  // implies it (rate <= remaining <= capacity), so it is left out of the sort.
  // Each step fixes what the lowest level constrains; on a tie between a link and a flow's bound, the flow goes
  // first, and equal bounds go in flow id order. Ties only decide the order in which equal levels are fixed.
  by_bound_.clear();
  link_cand_.clear();
  link_levels_.clear();
  check_.clear();
  for (int li : comp_links_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    l.remaining = std::max(0.0, l.capacity - l.kept);
    l.weight = 0;
    l.unfixed = 0;
  }
  for (int fi : comp_flows_) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.prev = f.rate;
    f.rate = -1;
    bool implied = false;  // an active link as narrow as its bound: that constraint implies the bound
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      if (!l.active) continue;
      l.weight += f.weight;
      ++l.unfixed;
      implied = implied || l.capacity <= f.bound;
    }
    if (!implied) by_bound_.emplace_back(f.bound / f.weight, fi);
  }
  std::sort(by_bound_.begin(), by_bound_.end());
  for (int li : comp_links_) {
    LinkRec& l = links_[static_cast<size_t>(li)];
    l.slot = static_cast<int>(link_cand_.size());
    link_cand_.push_back(li);
    link_levels_.push_back(l.remaining / l.weight);
  }
  lowest_stale_ = true;
  auto drop = [this](size_t slot) {  // swap-remove a link from the scan
    const size_t last = link_cand_.size() - 1;
    if (slot == lowest_slot_) lowest_stale_ = true;
    link_cand_[slot] = link_cand_.back();
    link_levels_[slot] = link_levels_.back();
    links_[static_cast<size_t>(link_cand_[slot])].slot = static_cast<int>(slot);
    link_cand_.pop_back();
    link_levels_.pop_back();
    if (lowest_stale_ || slot == last) return;
    if (last == lowest_slot_) lowest_slot_ = slot;  // the lowest link moved
    else if (link_levels_[slot] == lowest_level_ && slot < lowest_slot_) lowest_slot_ = slot;  // ties go to it now
  };
  auto fix = [this, &drop](int fi, double level) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.rate = std::min(level * f.weight, f.bound);
    for (int k = 0; k < f.n; ++k) {
      LinkRec& l = links_[static_cast<size_t>(f.links[k])];
      l.load += f.rate - f.prev;
      if (++l.updates >= kResum) {
        l.load = exact_load(f.links[k]);
        l.updates = 0;
      }
      if (!l.active) {
        if (l.binding && l.checked != epoch_) {
          l.checked = epoch_;
          check_.push_back(f.links[k]);
        }
        continue;
      }
      l.remaining -= f.rate;
      links_moved_ = true;
      // Re-zero when the last flow leaves so a rounding residue cannot make a level out of nothing.
      if (--l.unfixed == 0) {
        l.weight = 0;
        drop(static_cast<size_t>(l.slot));
      } else {
        l.weight -= f.weight;
        set_level(static_cast<size_t>(l.slot), (l.remaining > 0 ? l.remaining : 0) / l.weight);
      }
    }
  };
  size_t next = 0;  // the first flow in by_bound_ that may still be unfixed
  double level = 0;
  links_moved_ = true;
  while (true) {
    while (next < by_bound_.size() && flows_[static_cast<size_t>(by_bound_[next].second)].rate >= 0) ++next;
    if (next == by_bound_.size() && link_cand_.empty()) break;  // every flow fixed
    // The lowest link level, looked up only after a fix moved one (a flow fixed at its own bound off the active
    // links moves none), and scanned for only when the lowest link's own level rose or it left.
    if (links_moved_) {
      if (lowest_stale_ || !track_lowest_) {
        lowest_slot_ = scan_lowest(link_levels_, lowest_level_);
        lowest_stale_ = false;
      }
      level = lowest_level_;
      links_moved_ = false;
    }
    if (next < by_bound_.size() && by_bound_[next].first <= level) {
      fix(by_bound_[next].second, by_bound_[next].first);
      continue;
    }
    const size_t best = lowest_slot_;
    for (int fi : sets_[static_cast<size_t>(link_cand_[best])].flows)
      if (flows_[static_cast<size_t>(fi)].rate < 0) fix(fi, level);
  }
}

}  // namespace dualpath::sim
