// dualpath validate SIM_DIR HW_DIR [--tol METRIC=FRACTION]... [--only METRIC,...] [--json FILE]
// Compares a simulated run with a measured (hardware) run, metric by metric (core/metrics/compare.hpp): two run
// folders, or two folders of per-policy subfolders matched by name. Prints one table per policy.
// Exit code 0 when every checked metric is within tolerance, 1 when any is beyond, 2 on bad input.
// Reference: docs/validation.md.
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
#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/metrics/compare.hpp"
#include "core/metrics/run_folders.hpp"

namespace dualpath::cli {
namespace {

struct ValidateArgs {
  std::string sim_dir;
  std::string measured_dir;
  std::vector<std::string> tolerances;
  std::vector<std::string> only;
  std::string json_out;
};

struct PairResult {
  RunPair pair;
  Comparison comparison;
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

void print_table(const PairResult& r) {
  const auto& c = r.comparison;
  std::cout << "policy " << c.policy << ": simulated " << r.pair.sim_summary << " vs measured "
            << r.pair.measured_summary << "\n";
  std::cout << std::left << std::setw(30) << "metric" << std::setw(9) << "unit" << std::right << std::setw(14)
            << "simulated" << std::setw(14) << "measured" << std::setw(16) << "rel. error" << std::setw(14)
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
  for (const auto& t : a.tolerances) options.tolerances.push_back(parse_tolerance(t, "--tol " + t));
  for (const auto& o : a.only) {
    const auto names = name_list(o, "--only");
    options.only.insert(options.only.end(), names.begin(), names.end());
    options.only_origin += (options.only_origin.empty() ? "--only " : ",") + o;
  }
  if (!a.only.empty() && options.only.empty()) throw InputError("--only", "expected metric or group names, found none");

  // Everything is read and compared before anything is printed, so bad input leaves stdout empty.
  const RunPairing pairing = pair_run_folders(a.sim_dir, a.measured_dir);
  std::vector<PairResult> results;
  for (const auto& p : pairing.pairs) {
    const auto sim = read_json_file(p.sim_summary, "summary");
    const auto measured = read_json_file(p.measured_summary, "summary");
    results.push_back({p, compare_summaries(sim, p.sim_summary, measured, p.measured_summary, options)});
  }

  for (const auto& n : pairing.notes) std::cerr << "validate: note: " << n << "\n";
  size_t checked = 0, failed = 0;
  std::vector<std::string> failures;
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    if (i > 0) std::cout << "\n";
    print_table(results[i]);
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
  std::cout << "\nvalidate: " << checked - failed << " of " << checked << " metrics within tolerance";
  if (failed > 0) {
    std::cout << "; beyond tolerance:";
    for (const auto& f : failures) std::cout << " " << f;
  }
  std::cout << "\n";

  if (!a.json_out.empty()) {
    const nlohmann::json doc = {{"sim_dir", a.sim_dir},
                                {"measured_dir", a.measured_dir},
                                {"ok", failed == 0},
                                {"checked", checked},
                                {"failed", failed},
                                {"notes", pairing.notes},
                                {"runs", runs}};
    std::ofstream out(a.json_out);
    if (!(out << std::setw(2) << doc << "\n")) throw InputError(a.json_out, "cannot write the --json file");
  }
  if (failed > 0) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "Compare a simulated run with a measured run, metric by metric");
  cmd->add_option("sim_dir", args->sim_dir, "Simulated results folder (summary.json, or per-policy subfolders)")
      ->required();
  cmd->add_option("hw_dir", args->measured_dir, "Measured results folder, same layout")->required();
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
