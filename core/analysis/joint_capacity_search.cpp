#include "core/analysis/joint_capacity_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

namespace dualpath::analysis {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

const char* state_name(JointCapacitySearch::State s) {
  switch (s) {
    case JointCapacitySearch::State::Waiting: return "waiting";
    case JointCapacitySearch::State::Searching: return "searching";
    case JointCapacitySearch::State::Done: return "done";
    case JointCapacitySearch::State::Dropped: return "dropped";
    case JointCapacitySearch::State::GaveUp: return "gave up";
  }
  return "?";
}

JointCapacitySearch::JointCapacitySearch(JointSearchSpec spec, std::vector<JointCandidate> candidates)
    : spec_(spec), cands_(std::move(candidates)), searches_(cands_.size()) {
  if (!(spec_.start > 0)) spec_.start = 1;
  for (auto& c : cands_)
    if (!(c.prior > 0) || !std::isfinite(c.prior)) c.prior = 1;
}

std::optional<double> JointCapacitySearch::lowest_failing(size_t c) const {
  return searches_[c] ? searches_[c]->lowest_failing() : std::nullopt;
}

double JointCapacitySearch::group_best_pass(size_t c) const {
  double best = 0;
  for (size_t d = 0; d < cands_.size(); ++d)
    if (d != c && cands_[d].group == cands_[c].group) best = std::max(best, capacity(d));
  return best;
}

std::optional<size_t> JointCapacitySearch::dropped_below(size_t c) const {
  const auto fail = lowest_failing(c);
  if (!spec_.joint || !fail) return std::nullopt;
  std::optional<size_t> by;
  for (size_t d = 0; d < cands_.size(); ++d)
    if (d != c && cands_[d].group == cands_[c].group && capacity(d) >= *fail && (!by || capacity(d) > capacity(*by)))
      by = d;
  return by;
}

JointCapacitySearch::State JointCapacitySearch::state(size_t c) const {
  if (!searches_[c]) return State::Waiting;
  const CapacitySearch& s = *searches_[c];
  if (s.gave_up()) return State::GaveUp;
  if (s.next(1).empty()) return State::Done;
  if (dropped_below(c)) return State::Dropped;
  return State::Searching;
}

bool JointCapacitySearch::final(size_t c) const {
  const State s = state(c);
  return s == State::Done || s == State::Dropped || s == State::GaveUp;
}

std::optional<size_t> JointCapacitySearch::nearest_final(size_t c) const {
  // A finished search with a bracket; the same group first, then the nearest index.
  std::optional<size_t> best;
  auto key = [&](size_t d) {
    return std::make_pair(cands_[d].group != cands_[c].group,
                          std::abs(static_cast<long long>(d) - static_cast<long long>(c)));
  };
  for (size_t d = 0; d < cands_.size(); ++d)
    if (d != c && state(d) == State::Done && (!best || key(d) < key(*best))) best = d;
  return best;
}

void JointCapacitySearch::start(size_t c) {
  CapacitySearchSpec s;
  s.start = spec_.start;
  s.resolution = spec_.resolution;
  s.max_probes = spec_.max_probes;
  s.parallel = 1;
  if (spec_.joint) {
    if (const auto n = nearest_final(c)) {
      // The neighbour's bracket, scaled by the ratio of the priors, as the first loads; small galloping steps
      // out of it. A seed below the capacity another candidate of the group has shown is raised to it: only a
      // load at or above it can show that this candidate is a contender.
      const double rho = cands_[c].prior / cands_[*n].prior;
      const double floor = group_best_pass(c);
      std::vector<double> seeds;
      for (double v : {capacity(*n), lowest_failing(*n).value_or(0.0)})
        if (v > 0) seeds.push_back(std::max(rho * v, floor));
      seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
      s.seeds = seeds;
      if (!seeds.empty()) s.start = seeds.front();
      s.growth = 1 + 2 * spec_.resolution;
    }
  }
  searches_[c].emplace(s);
}

std::vector<JointProbe> JointCapacitySearch::next(int slots) {
  slots = std::max(1, slots);
  // Which candidates may take probes this round.
  std::vector<size_t> eligible;
  bool any_started = false, any_done = false, any_searching = false;
  for (size_t c = 0; c < cands_.size(); ++c) {
    any_started |= searches_[c].has_value();
    any_done |= state(c) == State::Done;
    any_searching |= state(c) == State::Searching;
  }
  if (spec_.joint && !any_started && !cands_.empty()) {
    // The lead: the first group's highest prior, ties to the middle of those tied.
    int g0 = cands_[0].group;
    for (const auto& c : cands_) g0 = std::min(g0, c.group);
    double top = 0;
    for (const auto& c : cands_)
      if (c.group == g0) top = std::max(top, c.prior);
    std::vector<size_t> tied;
    for (size_t c = 0; c < cands_.size(); ++c)
      if (cands_[c].group == g0 && cands_[c].prior >= top * (1 - 1e-9)) tied.push_back(c);
    eligible.push_back(tied[(tied.size() - 1) / 2]);
  } else {
    // Waiting candidates start once a neighbour has finished (or when nothing can seed them any more).
    const bool may_start = !spec_.joint || any_done || !any_searching;
    for (size_t c = 0; c < cands_.size(); ++c)
      if (state(c) == State::Searching || (may_start && state(c) == State::Waiting)) eligible.push_back(c);
  }
  // The most promising first: the highest load that has not failed (unknown counts as unbounded), then the
  // highest shown capacity, then the fixed order.
  auto upper = [&](size_t c) { return searches_[c] ? lowest_failing(c).value_or(kInf) : kInf; };
  std::stable_sort(eligible.begin(), eligible.end(), [&](size_t a, size_t b) {
    if (upper(a) != upper(b)) return upper(a) > upper(b);
    return capacity(a) > capacity(b);
  });
  for (size_t c : eligible)
    if (!searches_[c]) start(c);
  // One slot each in that order, round after round, while a candidate has a further load to offer.
  std::vector<int> given(cands_.size(), 0);
  for (bool progress = true; slots > 0 && progress;) {
    progress = false;
    for (size_t c : eligible) {
      if (slots == 0) break;
      if (static_cast<int>(searches_[c]->next(given[c] + 1).size()) > given[c]) {
        ++given[c];
        --slots;
        progress = true;
      }
    }
  }
  std::vector<JointProbe> out;
  for (size_t c : eligible)
    if (given[c] > 0)
      for (double load : searches_[c]->next(given[c])) out.push_back({c, load});
  return out;
}

void JointCapacitySearch::record(size_t candidate, double load, bool meets) {
  if (!searches_[candidate]) start(candidate);
  searches_[candidate]->record(load, meets);
}

int JointCapacitySearch::probes_left_estimate() const {
  int left = 0;
  for (size_t c = 0; c < cands_.size(); ++c) {
    switch (state(c)) {
      case State::Waiting: left += 2; break;
      case State::Searching: {
        const auto fail = lowest_failing(c);
        const double pass = capacity(c);
        if (fail && pass > 0)  // bisection: halve the log-width until it is within the resolution
          left += std::max(1, static_cast<int>(std::ceil(std::log2(std::log(*fail / pass) /
                                                                   std::log1p(spec_.resolution)))));
        else
          left += 4;
        break;
      }
      default: break;
    }
  }
  return left;
}

}  // namespace dualpath::analysis
