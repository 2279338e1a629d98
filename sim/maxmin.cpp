#include "sim/maxmin.hpp"

#include <stdexcept>
#include <utility>

namespace dualpath::sim {

MaxMin::MaxMin(std::vector<double> capacity) : capacity_(std::move(capacity)), state_(capacity_.size()) {
  for (double c : capacity_)
    if (!(c > 0)) throw std::invalid_argument("maxmin: link capacities must be > 0");
}

void MaxMin::solve(std::vector<Flow*>& flows) {
  active_.clear();
  for (size_t i = 0; i < flows.size(); ++i) {
    Flow& f = *flows[i];
    f.rate = -1;  // unfixed
    for (int k = 0; k < f.n; ++k) {
      LinkState& l = state_[static_cast<size_t>(f.links[k])];
      if (l.flows.empty()) {
        active_.push_back(f.links[k]);
        l.remaining = capacity_[static_cast<size_t>(f.links[k])];
        l.weight = 0;
        l.unfixed = 0;
      }
      l.flows.push_back(static_cast<int>(i));
      l.weight += f.weight;
      ++l.unfixed;
    }
  }
  size_t left = flows.size();
  while (left > 0) {
    // The bottleneck: the lowest level among links that still have unfixed flows. Ties go to the lowest link
    // index in active_ order, which only decides the order in which equal levels are fixed.
    int best = -1;
    double level = 0;
    for (int id : active_) {
      const LinkState& l = state_[static_cast<size_t>(id)];
      if (l.unfixed == 0) continue;
      const double v = (l.remaining > 0 ? l.remaining : 0) / l.weight;
      if (best < 0 || v < level) best = id, level = v;
    }
    if (best < 0) throw std::logic_error("maxmin: unfixed flows but no link to fix them");
    for (int fi : state_[static_cast<size_t>(best)].flows) {
      Flow& f = *flows[static_cast<size_t>(fi)];
      if (f.rate >= 0) continue;
      f.rate = level * f.weight;
      --left;
      for (int k = 0; k < f.n; ++k) {
        LinkState& l = state_[static_cast<size_t>(f.links[k])];
        l.remaining -= f.rate;
        // Sums of weights are exact while every weight is fixed at once; re-zero when the last flow leaves so a
        // rounding residue cannot make a level out of nothing.
        if (--l.unfixed == 0) l.weight = 0;
        else l.weight -= f.weight;
      }
    }
  }
  for (int id : active_) state_[static_cast<size_t>(id)].flows.clear();
}

}  // namespace dualpath::sim
