// The bandwidth claims of docs/claims.md (issues 5 and 20) as data and checks: which simulations each claim
// needs (ClaimPoint, claim_points) and, once they have run, the checks against the §4.2 model
// (bandwidth_model.hpp) read back from their run folders. Running the simulations is the caller's job
// (`dualpath claims`, cli/claims_cmd.cpp, runs them as child processes).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "core/analysis/bandwidth_model.hpp"
#include "core/config/scenario.hpp"
#include "core/analysis/link_window.hpp"

namespace dualpath::analysis {

constexpr int kClaimCount = 6;

// One simulation a claim needs: a scenario of the claims folder with P, D, the policy and a few overrides.
struct ClaimPoint {
  std::string id;        // folder name under the output folder
  std::string scenario;  // steady.json or jct.json
  std::string policy;
  int P = 1, D = 1;
  std::vector<std::string> sets;  // besides P, D, policy
  std::string label;              // for the table, e.g. "2P1D DualPath"
};

// The `--set` overrides of a point: P, D, policy and its own.
std::vector<std::string> claim_point_sets(const ClaimPoint& p);
// The points claim `claim` (1..kClaimCount) needs; empty for another number.
std::vector<ClaimPoint> claim_points(int claim);

struct ClaimRow {
  std::string claim, check, expected, measured;
  bool pass = true;
};

// Evaluates claims on finished runs: `scen_dir` holds steady.json and jct.json (the analytic model reads their
// topology, without any simulation-only override), `out` one run folder per point id.
class ClaimChecks {
 public:
  // `both`: overrides for the simulations and the analytic model alike (a calibration, `claims --calibration`).
  ClaimChecks(std::string scen_dir, std::string out, bool verbose, std::vector<std::string> both = {});
  // Appends the rows of claim `claim` (1..kClaimCount). Throws std::runtime_error when a run folder is missing or
  // malformed.
  void check(int claim);
  const std::vector<ClaimRow>& rows() const { return rows_; }
  // Per-link detail of claim 1 (every link with --verbose, else only a point that failed).
  std::string details() const { return details_.str(); }

 private:
  using Point = ClaimPoint;
  using Row = ClaimRow;
  void claim1();
  void claim2();
  void claim3();
  void claim4();
  void claim5();
  void claim6();
  static double started_hit_tokens(const std::string& path);
  void add(Row r) { rows_.push_back(std::move(r)); }
  BandwidthParams model_params(const Point& p) const;
  WindowUtil window(const Point& p) const;
  double jct_of(const Point& p) const;
  static std::string window_key(Link l);

  std::string scen_dir_, out_;
  bool verbose_;
  std::vector<std::string> both_;
  dualpath::Scenario point_scenario(const Point& p) const;  // the point's scenario under its sets and `both_`
  std::vector<Row> rows_;
  std::ostringstream details_;
};

}  // namespace dualpath::analysis
