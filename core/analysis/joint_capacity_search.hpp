// The SLO capacity of several candidates searched together (`dualpath plan --objective capacity`: one candidate per
// P/D split of each cluster variant), spending probes where they decide the answer:
//   - a lead first: the candidate of the first group with the highest prior (the §4.2 read rate its split can
//     sustain; ties go to the middle of the list) is searched alone from the start rate, with every slot;
//   - then every other candidate starts from the bracket of its nearest finished neighbour (same group first),
//     scaled by the ratio of their priors, and steps out from there in small, galloping steps;
//   - a candidate is dropped once its lowest failing load is at or below the capacity another candidate of its
//     group has shown (it cannot be that group's best), and a seed below that capacity is raised to it (a probe
//     there either drops the candidate or makes it a contender);
//   - the others are bisected to the resolution, so two whose brackets overlap are a tie the caller can call.
// Pure and deterministic: the caller runs each round's probes (child processes) and reports every verdict before
// asking for the next round, so an interrupted search that is replayed from cached verdicts proposes the same
// probes. Verdicts are assumed monotone in the load, as in CapacitySearch.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/analysis/capacity_search.hpp"

namespace dualpath::analysis {

struct JointCandidate {
  int group = 0;      // candidates are compared (and dropped) only within their group; seeds may cross groups
  double prior = 1;   // expected capacity up to a common factor (> 0), used only to scale a neighbour's bracket
};

struct JointSearchSpec {
  double start = 1;          // the lead's first load
  double resolution = 0.02;  // each kept candidate is bisected until (fail - pass) / pass <= this
  int max_probes = 60;       // per candidate
  bool joint = true;         // false: every candidate searched on its own from `start` (no lead, seed or drop)
};

struct JointProbe {
  size_t candidate = 0;
  double load = 0;
};

class JointCapacitySearch {
 public:
  enum class State { Waiting, Searching, Done, Dropped, GaveUp };

  JointCapacitySearch(JointSearchSpec spec, std::vector<JointCandidate> candidates);

  // The next round: at most `slots` probes over the candidates (none already probed); empty when every candidate
  // is final (Done, Dropped or GaveUp). Starts the candidates it gives slots to.
  std::vector<JointProbe> next(int slots);
  void record(size_t candidate, double load, bool meets);

  State state(size_t c) const;
  bool final(size_t c) const;
  double capacity(size_t c) const { return searches_[c] ? searches_[c]->capacity() : 0.0; }
  std::optional<double> lowest_failing(size_t c) const;
  size_t probes(size_t c) const { return searches_[c] ? searches_[c]->probes().size() : 0; }
  // For a dropped candidate: the one of its group whose capacity is at or above its lowest failing load.
  std::optional<size_t> dropped_below(size_t c) const;
  // A rough count of the probes still to run (for an estimate of the time left).
  int probes_left_estimate() const;

  size_t size() const { return cands_.size(); }

 private:
  double group_best_pass(size_t c) const;  // the highest capacity another candidate of c's group has shown
  std::optional<size_t> nearest_final(size_t c) const;
  void start(size_t c);

  JointSearchSpec spec_;
  std::vector<JointCandidate> cands_;
  std::vector<std::optional<CapacitySearch>> searches_;
};

const char* state_name(JointCapacitySearch::State s);  // "waiting", "searching", "done", "dropped", "gave up"

}  // namespace dualpath::analysis
