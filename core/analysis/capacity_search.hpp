// SLO capacity search: the highest load (agents per second) whose online run meets the SLO, by bracketing and
// then geometric bisection, `parallel` probes per round. Pure: the caller runs the probes (child processes in
// `dualpath capacity`) and reports each verdict back. Assumes the verdict is monotone in the load (meets at A
// implies meets below A); with noisy verdicts the capacity is the highest passing load below the lowest failing
// one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dualpath::analysis {

// Probe loads are named, run and recorded to this many significant digits (the folder probes/<policy>/aps=<text>
// and the run's workload.aps are the same text), so a verdict is always the verdict of the rate that was simulated
// and no two probed rates share a folder (issue 68: at --resolution 1e-7 the search reused verdicts of rates it
// never ran). The search proposes only loads with this text.
inline constexpr int kLoadDigits = 6;
// The load's text to kLoadDigits significant digits ("0.4625", "1.23457e-05").
std::string load_text(double load);
// The load as its text reads back: what a probe of `load` simulates.
double named_load(double load);
// The finest --resolution a search accepts: well above the naming's relative precision (at most 1e-5), so each
// bisection point is a new named load, and far below run-to-run noise.
inline constexpr double kMinResolution = 1e-4;

struct CapacitySearchSpec {
  double start = 1;          // first load probed (the scenario's workload.aps)
  double resolution = 0.02;  // stop when (fail - pass) / pass <= this
  double min_load = 1e-3;    // below this, the capacity is reported as 0
  int parallel = 1;          // probes proposed per round
  int max_probes = 60;
  // First loads to probe, most informative first, instead of the start and its doublings (e.g. a neighbouring
  // split's bracket, `dualpath plan`); empty = none.
  std::vector<double> seeds;
  // Factor of the first step out of a one-sided search (everything met, or everything failed so far); each
  // further step squares it, up to 2 (a seeded search starts near its answer and gallops out when it is not).
  double growth = 2;
};

class CapacitySearch {
 public:
  explicit CapacitySearch(CapacitySearchSpec spec);

  // Loads to probe next (at most `parallel`, or `k`, none already probed); empty when the search is over.
  std::vector<double> next() const { return next(spec_.parallel); }
  std::vector<double> next(int k) const;
  void record(double load, bool meets);

  bool done() const { return next().empty(); }
  // Highest load that met the SLO below the lowest that did not (0 if none met).
  double capacity() const;
  std::optional<double> lowest_failing() const;
  const std::map<double, bool>& probes() const { return probes_; }
  // True when the search stopped without bracketing to the resolution (max_probes, or nothing meets min_load, or
  // no named load lies strictly inside the bracket).
  bool gave_up() const;
  // True once a load has met the SLO and a higher one has not: the answer lies in [capacity, lowest failing).
  bool bracketed() const;

 private:
  std::optional<double> pass() const;  // highest passing below the lowest failing
  CapacitySearchSpec spec_;
  std::map<double, bool> probes_;
};

}  // namespace dualpath::analysis
