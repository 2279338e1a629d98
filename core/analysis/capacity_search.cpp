#include "core/analysis/capacity_search.hpp"

#include <algorithm>
#include <cmath>

namespace dualpath::analysis {

CapacitySearch::CapacitySearch(CapacitySearchSpec spec) : spec_(spec) {
  spec_.parallel = std::max(1, spec_.parallel);
  if (!(spec_.start > 0)) spec_.start = 1;
}

std::optional<double> CapacitySearch::lowest_failing() const {
  for (const auto& [load, meets] : probes_)
    if (!meets) return load;
  return std::nullopt;
}

std::optional<double> CapacitySearch::pass() const {
  const auto fail = lowest_failing();
  std::optional<double> best;
  for (const auto& [load, meets] : probes_)
    if (meets && (!fail || load < *fail)) best = load;
  return best;
}

double CapacitySearch::capacity() const { return pass().value_or(0.0); }

bool CapacitySearch::gave_up() const {
  if (static_cast<int>(probes_.size()) >= spec_.max_probes) return true;
  const auto fail = lowest_failing();
  return !pass() && fail && *fail <= spec_.min_load;
}

std::vector<double> CapacitySearch::next() const {
  if (gave_up()) return {};
  const auto lo = pass();
  const auto hi = lowest_failing();
  const int k = std::min(spec_.parallel, spec_.max_probes - static_cast<int>(probes_.size()));
  std::vector<double> out;
  auto add = [&](double load) {
    if (load > 0 && !probes_.count(load) && std::find(out.begin(), out.end(), load) == out.end()) out.push_back(load);
  };
  if (!lo && !hi) {  // nothing known: the start and, with spare probes, doublings of it
    for (int i = 0; i < k; ++i) add(spec_.start * std::pow(2.0, i));
  } else if (lo && !hi) {  // everything met so far: double upwards
    for (int i = 1; i <= k; ++i) add(*lo * std::pow(2.0, i));
  } else if (!lo) {  // everything failed so far: halve downwards, not below min_load
    for (int i = 1; i <= k; ++i) add(std::max(spec_.min_load, *hi / std::pow(2.0, i)));
  } else {  // bracketed: k points spread geometrically inside (lo, hi) until it is narrow enough
    if ((*hi - *lo) / *lo <= spec_.resolution) return {};
    for (int i = 1; i <= k; ++i) add(*lo * std::pow(*hi / *lo, static_cast<double>(i) / (k + 1)));
  }
  return out;
}

void CapacitySearch::record(double load, bool meets) { probes_[load] = meets; }

}  // namespace dualpath::analysis
