// dualpath validate RUN REFERENCE [--gate] [--tol METRIC=FRACTION]... [--only METRIC,...] [--json FILE]
//                   [--junit FILE] [--allow-other-scenario]
// Compares a run with a reference, metric by metric (core/metrics/compare.hpp): two run folders, or two folders
// of per-policy subfolders matched by name. Two uses: a simulated run against a measured (hardware) one
// (docs/validation.md), and, with --gate, a new run against a committed baseline, where only a move the worse way
// beyond a tolerance fails (docs/ci.md). Runs of different scenarios (name or workload) are refused unless
// --allow-other-scenario; the versions that produced both runs (perf.json) are printed. Prints one table per policy
// (with --gate, one line per metric that moved beyond its tolerance); --json and --junit write the comparison.
// Exit code 0 when every checked metric is within tolerance, 1 when any is beyond, 2 on bad input.
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/name_list.hpp"
#include "core/config/output_file.hpp"
#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/metrics/compare.hpp"
#include "core/metrics/junit_report.hpp"
#include "core/metrics/run_pairing.hpp"

namespace dualpath::cli {
namespace {

struct ValidateArgs {
  std::string sim_dir;       // the run under test (a simulation, or a new build's run)
  std::string measured_dir;  // what it is checked against (a measured run, or a baseline)
  std::vector<std::string> tolerances;
  std::vector<std::string> only;
  std::string json_out, junit_out;
  bool gate = false, allow_other_scenario = false;
};

// The question a run answers: its scenario's name and workload (what is served). A gate compares a changed system
// (topology, policy parameters, model, code) on the same question; another question is refused.
nlohmann::json scenario_identity(const nlohmann::json& summary) {
  const auto* c = summary.contains("config") ? &summary["config"] : nullptr;
  if (!c || !c->is_object() || !c->contains("name")) return nullptr;
  return {{"name", (*c)["name"]}, {"workload", c->value("workload", nlohmann::json())}};
}

// The version recorded beside a summary (perf.json's "version"), or "unknown".
std::string run_version(const std::string& summary_path) {
  const std::string perf = summary_path.substr(0, summary_path.rfind('/') + 1) + "perf.json";
  try {
    std::ifstream in(perf);
    if (in) return nlohmann::json::parse(in).value("version", "unknown");
  } catch (const std::exception&) {
  }
  return "unknown";
}

// The keys in which two identities differ, e.g. "name" or "workload.agents".
std::string identity_difference(const nlohmann::json& a, const nlohmann::json& b) {
  if (a["name"] != b["name"]) return "scenario " + a["name"].dump() + " vs " + b["name"].dump();
  for (const auto& [k, v] : a["workload"].items())
    if (!b["workload"].contains(k) || b["workload"][k] != v)
      return "workload." + k + " " + v.dump() + " vs " + (b["workload"].contains(k) ? b["workload"][k].dump() : "absent");
  for (const auto& [k, v] : b["workload"].items())
    if (!a["workload"].contains(k)) return "workload." + k + " absent vs " + v.dump();
  return "";
}

struct PairResult {
  RunPair pair;
  Comparison comparison;
  double seconds = 0;  // wall time to read and compare the pair, which its JUnit cases share evenly
};

std::string short_num(double v) {
  std::ostringstream o;
  o << std::setprecision(6) << v;
  return o.str();
}

std::string percent(double fraction) {
  std::ostringstream o;
  o << std::showpos << std::fixed << std::setprecision(2) << 100 * fraction << "%";
  return o.str();
}

// The two runs' names: a simulation against a measurement, or, in a gate, a new run against its baseline.
void print_table(const PairResult& r, bool gate) {
  const auto& c = r.comparison;
  const char* run = gate ? "new" : "simulated";
  const char* ref = gate ? "baseline" : "measured";
  std::cout << "policy " << c.policy << ": " << run << " " << r.pair.sim_summary << " vs " << ref << " "
            << r.pair.measured_summary << "\n";
  std::cout << std::left << std::setw(30) << "metric" << std::setw(9) << "unit" << std::right << std::setw(14)
            << run << std::setw(14) << ref << std::setw(16) << "rel. error" << std::setw(14)
            << "tolerance" << "  result\n";
  for (const auto& m : c.metrics) {
    // Measured 0 has no relative error: show the absolute difference and the tolerance as an absolute bound.
    const std::string err = m.rel_error ? percent(*m.rel_error) : "abs " + short_num(m.abs_error);
    const std::string tol =
        m.rel_error || m.sim == 0 ? percent(m.tolerance).substr(1) : "abs " + short_num(m.tolerance);
    std::cout << std::left << std::setw(30) << m.metric << std::setw(9) << m.unit << std::right << std::setw(14)
              << short_num(m.sim) << std::setw(14) << short_num(m.measured) << std::setw(16) << err << std::setw(14)
              << tol << "  "
              << (m.ok ? "ok" : "FAIL") << "\n";
  }
}

void validate(const ValidateArgs& a) {
  CompareOptions options;
  options.one_sided = a.gate;
  for (const auto& t : a.tolerances) options.tolerances.push_back(parse_tolerance(t, "--tol " + t));
  for (const auto& o : a.only) {
    const auto names = name_list(o, "--only");
    options.only.insert(options.only.end(), names.begin(), names.end());
    options.only_origin += (options.only_origin.empty() ? "--only " : ",") + o;
  }
  if (!a.only.empty() && options.only.empty()) throw InputError("--only", "expected metric or group names, found none");
  // The reports' paths, before anything is read or written (the output rule): never a device, a link, nor a file
  // of the runs it compares; and not both the same file.
  if (!a.junit_out.empty()) check_output_file(a.junit_out, "--junit", {a.sim_dir, a.measured_dir}, /*folder_may_be_made=*/true);
  if (!a.json_out.empty()) check_output_file(a.json_out, "--json", {a.sim_dir, a.measured_dir});
  if (!a.junit_out.empty() && a.junit_out == a.json_out)
    throw InputError("--json " + a.json_out, "is the --junit file too: name two files");

  // Everything is read and compared before anything is printed, so bad input leaves stdout empty.
  const RunPairing pairing = pair_run_folders(a.sim_dir, a.measured_dir);
  std::vector<PairResult> results;
  std::vector<std::string> identity_notes;
  for (const auto& p : pairing.pairs) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto sim = read_json_file(p.sim_summary, "summary");
    const auto measured = read_json_file(p.measured_summary, "summary");
    const auto ia = scenario_identity(sim), ib = scenario_identity(measured);
    if (ia.is_null() || ib.is_null()) {
      identity_notes.push_back((ia.is_null() ? p.sim_summary : p.measured_summary) +
                               " records no scenario (/config/name): the question of the two runs is not checked");
    } else if (const std::string d = identity_difference(ia, ib); !d.empty()) {
      if (!a.allow_other_scenario)
        throw InputError(p.sim_summary, "answers another question than " + p.measured_summary + " (" + d +
                                            "); compare runs of the same scenario and workload, or give "
                                            "--allow-other-scenario");
      identity_notes.push_back("comparing runs of different scenarios (" + d + "), as --allow-other-scenario asks");
    }
    results.push_back({p, compare_summaries(sim, p.sim_summary, measured, p.measured_summary, options),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
  }

  for (const auto& n : pairing.notes) std::cerr << "validate: note: " << n << "\n";
  for (const auto& n : identity_notes) std::cerr << "validate: note: " << n << "\n";
  if (!results.empty())
    std::cout << "versions: " << run_version(results[0].pair.sim_summary) << " (" << a.sim_dir << ") against "
              << run_version(results[0].pair.measured_summary) << " (" << a.measured_dir << ")"
              << (a.gate ? "; gate: only a move the worse way beyond a tolerance fails" : "") << "\n\n";
  size_t checked = 0, failed = 0;
  std::vector<std::string> failures;
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    if (i > 0) std::cout << "\n";
    print_table(results[i], a.gate);
    const auto& c = results[i].comparison;
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : c.metrics) {
      ++checked;
      if (!m.ok) {
        ++failed;
        failures.push_back(m.metric + " (" + c.policy + ")");
      }
      metrics.push_back(to_json(m));
    }
    runs.push_back({{"name", results[i].pair.name},
                    {"policy", c.policy},
                    {"sim_summary", results[i].pair.sim_summary},
                    {"measured_summary", results[i].pair.measured_summary},
                    {"ok", c.ok()},
                    {"metrics", metrics}});
  }
  if (a.gate) {  // one line per metric that moved beyond its tolerance, for a CI log
    for (const auto& r : results)
      for (const auto& m : r.comparison.metrics)
        if (!m.ok)
          std::cout << "\nREGRESSION " << m.metric << " (" << r.comparison.policy << "): " << short_num(m.measured)
                    << " -> " << short_num(m.sim) << " " << m.unit
                    << (m.rel_error ? " (" + percent(*m.rel_error) + ")" : std::string()) << ", tolerance "
                    << percent(m.tolerance).substr(1);
    std::cout << "\n";
  }
  if (!a.junit_out.empty()) {
    std::vector<JunitSuite> suites;
    for (const auto& r : results) {
      JunitSuite suite{"validate." + r.comparison.policy, {}};
      for (const auto& m : r.comparison.metrics) {
        JunitCase c;
        c.classname = suite.name;
        c.name = m.metric;
        c.failed = !m.ok;
        c.time_s = r.seconds / static_cast<double>(r.comparison.metrics.size());
        c.message = m.metric + ": " + short_num(m.sim) + " " + m.unit + " against " + short_num(m.measured) + " " +
                    m.unit + (m.rel_error ? ", relative error " + percent(*m.rel_error) : ", absolute error " +
                    short_num(m.abs_error)) + ", tolerance " + percent(m.tolerance).substr(1) +
                    (a.gate ? " (the worse way only)" : "");
        suite.cases.push_back(std::move(c));
      }
      suites.push_back(std::move(suite));
    }
    write_junit(a.junit_out, suites);
  }
  std::cout << "\nvalidate: " << checked - failed << " of " << checked << " metrics within tolerance";
  if (failed > 0) {
    std::cout << "; beyond tolerance:";
    for (const auto& f : failures) std::cout << " " << f;
  }
  std::cout << "\n";

  if (!a.json_out.empty()) {
    const nlohmann::json doc = {{"sim_dir", a.sim_dir},
                                {"measured_dir", a.measured_dir},
                                {"gate", a.gate},
                                {"versions", {{"run", results.empty() ? "" : run_version(results[0].pair.sim_summary)},
                                              {"reference",
                                               results.empty() ? "" : run_version(results[0].pair.measured_summary)}}},
                                {"ok", failed == 0},
                                {"checked", checked},
                                {"failed", failed},
                                {"notes", pairing.notes},
                                {"runs", runs}};
    std::ostringstream text;
    text << std::setw(2) << doc << "\n";
    write_text_atomically(a.json_out, text.str());
  }
  if (failed > 0) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "Compare a simulated run with a measured run, metric by metric");
  cmd->add_option("run", args->sim_dir,
                  "The run under test: a simulated run, or a new run for a gate (summary.json, or per-policy subfolders)")
      ->required();
  cmd->add_option("reference", args->measured_dir,
                  "What it is checked against: a measured run, or a committed baseline; same layout")
      ->required();
  cmd->add_flag("--gate", args->gate,
                "Regression gate: only a move the worse way (times up, throughput down, bytes either way) fails");
  cmd->add_flag("--allow-other-scenario", args->allow_other_scenario,
                "Compare runs of different scenarios or workloads (refused otherwise)");
  cmd->add_option("--junit", args->junit_out, "Also write the comparison as a JUnit XML report (one case per metric)");
  cmd->add_option("--tol", args->tolerances,
                  "METRIC=FRACTION: tolerance of a metric or group (jct, throughput, latency, bytes); repeatable")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--only", args->only, "Check only these metrics or groups (comma-separated)")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--json", args->json_out, "Also write the comparison as JSON to this file");
  cmd->callback([args] { validate(*args); });
}

}  // namespace dualpath::cli
