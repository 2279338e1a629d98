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

void MaxMin::touch(int link) {
  LinkRec& l = links_[static_cast<size_t>(link)];
  if (!l.dirty) {
    l.dirty = true;
    dirty_.push_back(link);
  }
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
  for (int k = 0; k < n; ++k) {
    links_[static_cast<size_t>(links[k])].flows.push_back(id);
    touch(links[k]);
  }
  return id;
}

void MaxMin::remove(int id) {
  FlowRec& f = flows_[static_cast<size_t>(id)];
  for (int k = 0; k < f.n; ++k) {
    auto& v = links_[static_cast<size_t>(f.links[k])].flows;
    auto it = std::find(v.begin(), v.end(), id);
    if (it != v.end()) {
      *it = v.back();
      v.pop_back();
    }
    touch(f.links[k]);
  }
  f.links = nullptr;
  f.n = 0;
  free_.push_back(id);
}

void MaxMin::solve() {
  comp_links_.clear();
  comp_flows_.clear();
  if (dirty_.empty()) return;
  // The components of the changed links: links and flows reachable through shared links.
  ++epoch_;
  stack_.clear();
  for (int l : dirty_) {
    links_[static_cast<size_t>(l)].dirty = false;
    if (links_[static_cast<size_t>(l)].mark != epoch_) {
      links_[static_cast<size_t>(l)].mark = epoch_;
      stack_.push_back(l);
    }
  }
  dirty_.clear();
  while (!stack_.empty()) {
    const int l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    for (int fi : links_[static_cast<size_t>(l)].flows) {
      FlowRec& f = flows_[static_cast<size_t>(fi)];
      if (f.mark == epoch_) continue;
      f.mark = epoch_;
      comp_flows_.push_back(fi);
      for (int k = 0; k < f.n; ++k) {
        LinkRec& m = links_[static_cast<size_t>(f.links[k])];
        if (m.mark != epoch_) {
          m.mark = epoch_;
          stack_.push_back(f.links[k]);
        }
      }
    }
  }

  // Progressive filling over those components.
  for (int l : comp_links_) {
    LinkRec& r = links_[static_cast<size_t>(l)];
    r.remaining = r.capacity;
    r.weight = 0;
    r.unfixed = 0;
  }
  for (int fi : comp_flows_) {
    FlowRec& f = flows_[static_cast<size_t>(fi)];
    f.rate = -1;
    for (int k = 0; k < f.n; ++k) {
      LinkRec& r = links_[static_cast<size_t>(f.links[k])];
      r.weight += f.weight;
      ++r.unfixed;
    }
  }
  // Components are small (tens of links), so the bottleneck is found by scanning a contiguous array of the
  // levels of the links that still have unfixed flows; a link's level is recomputed only when a flow crossing it
  // is fixed, and the link leaves the array when its last flow is fixed.
  cand_.clear();
  levels_.clear();
  for (int l : comp_links_) {
    LinkRec& r = links_[static_cast<size_t>(l)];
    if (r.unfixed == 0) continue;  // a link whose flows all left
    r.slot = static_cast<int>(cand_.size());
    cand_.push_back(l);
    levels_.push_back(r.remaining / r.weight);
  }
  size_t left = comp_flows_.size();
  while (left > 0) {
    if (cand_.empty()) throw std::logic_error("maxmin: unfixed flows but no link to fix them");
    size_t best = 0;
    for (size_t i = 1; i < levels_.size(); ++i)
      if (levels_[i] < levels_[best] || (levels_[i] == levels_[best] && cand_[i] < cand_[best])) best = i;
    const double level = levels_[best];
    const int bottleneck = cand_[best];
    for (int fi : links_[static_cast<size_t>(bottleneck)].flows) {
      FlowRec& f = flows_[static_cast<size_t>(fi)];
      if (f.rate >= 0) continue;
      f.rate = level * f.weight;
      --left;
      for (int k = 0; k < f.n; ++k) {
        LinkRec& r = links_[static_cast<size_t>(f.links[k])];
        r.remaining -= f.rate;
        // Re-zero when the last flow leaves so a rounding residue cannot make a level out of nothing.
        if (--r.unfixed == 0) {
          r.weight = 0;
          const auto slot = static_cast<size_t>(r.slot);
          cand_[slot] = cand_.back();
          levels_[slot] = levels_.back();
          links_[static_cast<size_t>(cand_[slot])].slot = r.slot;
          cand_.pop_back();
          levels_.pop_back();
        } else {
          r.weight -= f.weight;
          levels_[static_cast<size_t>(r.slot)] = (r.remaining > 0 ? r.remaining : 0) / r.weight;
        }
      }
    }
  }
}

}  // namespace dualpath::sim
