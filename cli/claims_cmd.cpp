// dualpath claims [--only 1,3] [--out DIR] [--jobs N] [--scenarios DIR] [--sim-set k=v]... [--verbose] [--junit F]
// Re-checks the bandwidth claims of issue 5 (docs/claims.md) on small scenarios (scenarios/claims/): runs the
// simulations it needs as child processes, compares them with the §4.2 model (core/analysis/bandwidth_model.hpp),
// prints a table (claim, check, expected, measured, PASS/FAIL) and exits 1 when any check fails. --junit FILE also
// writes the checks as JUnit XML (core/metrics/junit_report.hpp): one test case per check, docs/ci.md.
//
// Steady-state utilisation comes from each run's links.csv over the window [25%, 75%] of its simulated time
// (steady.json stops at 40 s: the window is [10 s, 30 s]), which leaves out the ramp-up (the agents' first
// rounds, all compute) and, in complete runs, the drain.
//
// --sim-set applies an override to the simulations only, not to the analytic model: a way to show that the suite
// fails when the simulated platform departs from the model (e.g. --sim-set topology.dram_bw="1 PB/s": DRAM that
// costs nothing makes the DRAM rows of claim 1 fail).
// The claims themselves (points, checks, tolerances) live in core/analysis/claims.cpp; this file runs the
// simulations and prints the table.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/name_list.hpp"
#include "core/config/output_file.hpp"
#include "core/analysis/claims.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/config/overrides.hpp"
#include "core/metrics/junit_report.hpp"

namespace dualpath::cli {
namespace {

namespace fs = std::filesystem;
using analysis::ClaimPoint;
using analysis::ClaimRow;

// Runs every point's simulation as a child process into OUT/<point id>, `jobs` at a time; returns each point's
// wall seconds (from its start to its end, by point id), which the JUnit report charges to the claims using it.
std::map<std::string, double> run_points(const std::vector<ClaimPoint>& pts, const std::string& scen_dir,
                                         const std::string& out, const std::vector<std::string>& sim_sets,
                                         unsigned jobs) {
  std::vector<ChildJob> cj;
  for (const auto& p : pts) {
    const std::string dir = out + "/" + p.id;
    fs::create_directories(dir);
    ChildJob j;
    j.args = {"run", scen_dir + "/" + p.scenario, "--quiet", "--out", dir};
    for (const auto& s : analysis::claim_point_sets(p)) j.args.insert(j.args.end(), {"--set", s});
    for (const auto& s : sim_sets) j.args.insert(j.args.end(), {"--set", s});
    j.log_path = dir + "/run.log";
    cj.push_back(std::move(j));
  }
  std::cerr << "claims: " << pts.size() << " simulations, " << jobs << " at a time, in " << out << "\n";
  size_t done = 0;
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> started(pts.size());
  std::map<std::string, double> wall;
  const auto codes = run_child_jobs(cj, jobs, [&](size_t i) { started[i] = Clock::now(); }, [&](size_t i, int code) {
    wall[pts[i].id] = std::chrono::duration<double>(Clock::now() - started[i]).count();
    ++done;
    std::cerr << "  [" << done << "/" << pts.size() << "] " << pts[i].label << " ("
              << pts[i].id << ")" << (code ? " FAILED, exit code " + std::to_string(code) : "") << "\n";
  });
  for (size_t i = 0; i < pts.size(); ++i)
    if (codes[i] != 0)
      throw std::runtime_error("simulation " + pts[i].id + " failed (exit code " + std::to_string(codes[i]) +
                               "): " + log_tail(cj[i].log_path));
  return wall;
}

// The table (claim, check, expected, measured, PASS/FAIL), the per-link detail and a last line; true if all pass.
bool print(const std::vector<ClaimRow>& rows, const std::string& details) {
  size_t wc = 5, wk = 5, we = 8, wm = 8;
  for (const auto& r : rows) {
    wk = std::max(wk, r.check.size());
    we = std::max(we, r.expected.size());
    wm = std::max(wm, r.measured.size());
  }
  auto line = [&](const std::string& a, const std::string& b, const std::string& c, const std::string& d,
                  const std::string& e) {
    std::cout << std::left << std::setw(static_cast<int>(wc + 1)) << a << std::setw(static_cast<int>(wk + 2)) << b
              << std::setw(static_cast<int>(we + 2)) << c << std::setw(static_cast<int>(wm + 2)) << d << e << "\n";
  };
  line("claim", "check", "expected", "measured", "result");
  bool ok = true;
  for (const auto& r : rows) {
    line(r.claim, r.check, r.expected, r.measured, r.pass ? "PASS" : "FAIL");
    ok = ok && r.pass;
  }
  if (!details.empty()) std::cout << "\nper-link detail:\n" << details;
  size_t fails = 0;
  for (const auto& r : rows) fails += r.pass ? 0 : 1;
  std::cout << "\n" << (ok ? "all " + std::to_string(rows.size()) + " checks passed"
                           : std::to_string(fails) + " of " + std::to_string(rows.size()) + " checks FAILED")
            << "\n";
  return ok;
}

struct ClaimsArgs {
  std::string only;
  std::string out = "results/claims";
  std::string scenarios = std::string(DUALPATH_DATA_DIR) + "/scenarios/claims";
  std::vector<std::string> sim_sets;
  unsigned jobs = 0;
  bool verbose = false;
  std::string junit;  // JUnit XML report path ("" = none)
  std::string calibration;  // --calibration: the cluster of both the simulations and the analytic model
};

// What each claim cost in wall seconds: its own checks' evaluation, plus its simulations, a simulation that several
// claims use being shared evenly among them (so the report's total is the work done, counted once).
std::map<std::string, double> claim_seconds(const std::set<int>& which, const std::map<std::string, double>& wall,
                                            const std::map<int, double>& check_s) {
  std::map<std::string, int> users;
  for (int c : which)
    for (const auto& p : analysis::claim_points(c)) ++users[p.id];
  std::map<std::string, double> out;
  for (int c : which) {
    double t = check_s.at(c);
    std::set<std::string> counted;  // a point listed twice by one claim is charged once
    for (const auto& p : analysis::claim_points(c))
      if (counted.insert(p.id).second && wall.count(p.id)) t += wall.at(p.id) / users.at(p.id);
    out[std::to_string(c)] = t;
  }
  return out;
}

// One JUnit test case per check, grouped by claim: the claim and check as its name, expected and measured in its
// message. A check's time is its claim's cost (claim_seconds) shared evenly among the claim's checks, since they
// read the same simulations.
void write_claims_junit(const std::string& path, const std::vector<ClaimRow>& rows,
                        const std::map<std::string, double>& claim_s) {
  std::map<std::string, size_t> checks;
  for (const auto& r : rows) ++checks[r.claim];
  std::vector<JunitSuite> suites;
  for (const auto& r : rows) {
    const std::string suite = "claims.claim" + r.claim;
    if (suites.empty() || suites.back().name != suite) suites.push_back({suite, {}});
    JunitCase c;
    c.classname = suite;
    c.name = r.check;
    c.failed = !r.pass;
    c.message = "measured " + r.measured + ", expected " + r.expected;
    if (const auto it = claim_s.find(r.claim); it != claim_s.end())
      c.time_s = it->second / static_cast<double>(checks.at(r.claim));
    suites.back().cases.push_back(std::move(c));
  }
  write_junit(path, suites);
}

void claims(const ClaimsArgs& a) {
  std::set<int> which;
  if (a.only.empty()) {
    for (int c = 1; c <= analysis::kClaimCount; ++c) which.insert(c);
  } else {
    for (const std::string& t : name_list(a.only, "--only")) {
      if (t.size() != 1 || t[0] < '1' || t[0] > '6') throw InputError("--only " + a.only, "expected claims 1-6, e.g. 1,3");
      which.insert(t[0] - '0');
    }
  }
  for (const char* f : {"steady.json", "jct.json"})
    if (!fs::exists(a.scenarios + "/" + f)) throw InputError(a.scenarios, std::string("no ") + f + " here");
  std::vector<ClaimPoint> pts;
  std::set<std::string> seen;
  for (int c : which)
    for (auto& p : analysis::claim_points(c))
      if (seen.insert(p.id).second) pts.push_back(p);
  // A calibration describes the cluster both sides model: it goes to the simulations and the analytic model alike,
  // under each point's own settings (a --sim-set still departs from the model).
  std::vector<std::string> both;
  if (!a.calibration.empty())
    both.push_back(labelled_override("--calibration " + a.calibration, "calibration=" + a.calibration));
  std::vector<std::string> sim_sets = both;
  sim_sets.insert(sim_sets.end(), a.sim_sets.begin(), a.sim_sets.end());
  // Validate every simulation's configuration (with --sim-set) before starting any.
  for (const auto& p : pts) {
    auto sets = both;
    const auto own = analysis::claim_point_sets(p);
    sets.insert(sets.end(), own.begin(), own.end());
    sets.insert(sets.end(), a.sim_sets.begin(), a.sim_sets.end());
    (void)load_scenario(a.scenarios + "/" + p.scenario, sets);
  }
  // Before any simulation, and before anything is made: the report's path (the output rule), then the folder.
  if (!a.junit.empty()) check_output_file(a.junit, "--junit", {}, /*folder_may_be_made=*/true);
  make_output_folder(a.out, "--out");  // a file in the way is refused
  const auto wall = run_points(pts, a.scenarios, a.out, sim_sets, a.jobs ? a.jobs : default_parallelism());
  analysis::ClaimChecks c(a.scenarios, a.out, a.verbose, both);
  std::map<int, double> check_s;
  for (int claim : which) {
    const auto t0 = std::chrono::steady_clock::now();
    c.check(claim);
    check_s[claim] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (!a.calibration.empty()) {
    const Scenario named = load_scenario(a.scenarios + "/steady.json", both);
    std::cout << "calibration " << named.calibration.name << ": " << named.calibration.label << "\n";
  }
  if (!a.sim_sets.empty()) {
    std::cout << "simulations run with --sim-set";
    for (const auto& s : a.sim_sets) std::cout << " " << s;
    std::cout << " (the analytic model without)\n";
  }
  if (!a.junit.empty()) write_claims_junit(a.junit, c.rows(), claim_seconds(which, wall, check_s));
  if (!print(c.rows(), c.details())) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_claims_command(CLI::App& app) {
  auto args = std::make_shared<ClaimsArgs>();
  CLI::App* cmd = app.add_subcommand("claims", "Re-check the bandwidth claims (docs/claims.md); exit 1 on a failure");
  cmd->add_option("--only", args->only, "Comma-separated claims to check (default 1,2,3,4,5,6)");
  cmd->add_option("--out", args->out, "Folder for the simulations' outputs")->capture_default_str();
  cmd->add_option("--scenarios", args->scenarios, "Folder holding steady.json and jct.json")->capture_default_str();
  cmd->add_option("--sim-set", args->sim_sets, "Override for the simulations only, not the analytic model")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--jobs", args->jobs, "Simulations at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--verbose", args->verbose, "Print every link of claim 1");
  cmd->add_option("--calibration", args->calibration,
                  "Cluster calibration of the simulations and the analytic model alike: a bundled name (ideal, "
                  "paper-cluster) or a file (docs/calibration.md)")->type_name("NAME|FILE");
  cmd->add_option("--junit", args->junit, "Also write the checks as a JUnit XML report (one test case per check)");
  cmd->callback([args] { claims(*args); });
}

}  // namespace dualpath::cli
