#include "core/analysis/capacity_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace dualpath::analysis {

std::string load_text(double load) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", kLoadDigits, load);
  return buf;
}

double named_load(double load) { return std::strtod(load_text(load).c_str(), nullptr); }

CapacitySearch::CapacitySearch(CapacitySearchSpec spec) : spec_(std::move(spec)) {
  spec_.parallel = std::max(1, spec_.parallel);
  if (!(spec_.start > 0)) spec_.start = 1;
  if (!(spec_.growth > 1)) spec_.growth = 2;
}

bool CapacitySearch::bracketed() const { return pass() && lowest_failing(); }

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
  const auto lo = pass();
  if (lo && fail && (*fail - *lo) / *lo > spec_.resolution) {  // wider than asked: is a named load left inside?
    const double mid = named_load(*lo * std::sqrt(*fail / *lo));
    if (mid <= *lo || mid >= *fail) return true;
  }
  return !lo && fail && *fail <= spec_.min_load;
}

std::vector<double> CapacitySearch::next(int k_wanted) const {
  if (gave_up()) return {};
  const auto lo = pass();
  const auto hi = lowest_failing();
  const int k = std::min(std::max(1, k_wanted), spec_.max_probes - static_cast<int>(probes_.size()));
  // A one-sided step: `growth` for the first, squared for each one after, at most 2 (plain doubling by default).
  const double step = std::min(std::max(spec_.growth, 2.0),
                               std::pow(spec_.growth, std::pow(2.0, std::max<double>(0, probes_.size() - 1.0))));
  std::vector<double> out;
  auto add = [&](double wanted) {  // proposes the named load (kLoadDigits), once
    const double load = named_load(wanted);
    if (load > 0 && !probes_.count(load) && std::find(out.begin(), out.end(), load) == out.end()) out.push_back(load);
  };
  if (!lo && !hi) {  // nothing known: the seeds, or the start and, with spare probes, its one-sided steps
    if (!spec_.seeds.empty())
      for (size_t i = 0; i < spec_.seeds.size() && static_cast<int>(out.size()) < k; ++i) add(spec_.seeds[i]);
    else
      for (int i = 0; i < k; ++i) add(spec_.start * std::pow(step, i));
  } else if (lo && !hi) {  // everything met so far: the seeds above, then steps upwards
    for (double s : spec_.seeds)
      if (s > *lo && static_cast<int>(out.size()) < k) add(s);
    for (int i = 1; static_cast<int>(out.size()) < k; ++i) add(*lo * std::pow(step, i));
  } else if (!lo) {  // everything failed so far: the seeds below, then steps downwards, not below min_load
    for (double s : spec_.seeds)
      if (s < *hi && s >= spec_.min_load && static_cast<int>(out.size()) < k) add(s);
    for (int i = 1; static_cast<int>(out.size()) < k && i <= k + 1; ++i)
      add(std::max(spec_.min_load, *hi / std::pow(step, i)));
  } else {  // bracketed: k points spread geometrically inside (lo, hi) until it is narrow enough
    if ((*hi - *lo) / *lo <= spec_.resolution) return {};
    for (int i = 1; i <= k; ++i) {
      const double load = named_load(*lo * std::pow(*hi / *lo, static_cast<double>(i) / (k + 1)));
      if (load > *lo && load < *hi) add(load);  // a point that names an end is no new probe
    }
  }
  return out;
}

void CapacitySearch::record(double load, bool meets) { probes_[load] = meets; }

}  // namespace dualpath::analysis
