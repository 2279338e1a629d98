// dualpath plan SCENARIO --nodes N [--objective jct|capacity] [--policy P] [--jobs J] [--overlay F]... [--set k=v]...
//               --out DIR
// Evaluates every P/D split with P + D = N (core/analysis/plan_splits.hpp: EP groups that fit each side, splits
// whose weights do not fit a GPU reported as infeasible) and recommends the best: the lowest JCT of an offline
// scenario (objective jct: one `dualpath run` child per split, --jobs at a time), or the highest SLO capacity of
// an online one (objective capacity: one `dualpath capacity` child per split, each with --jobs probes). Explains
// the choice with the binding resource and the §4.2 bottleneck-free P/D range. Splits already evaluated in DIR
// (same scenario, overlays, --set, objective, policy) are reused. Writes DIR/plan.json. Exit 0, 1 when a split
// failed to run, 2 on bad input.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/output_folder.hpp"
#include "cli/scenario_options.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/plan_splits.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath::cli {
namespace {

namespace fs = std::filesystem;

struct PlanArgs {
  std::string scenario, out, objective = "jct", policy;
  int nodes = 0;
  unsigned jobs = 0;
  double resolution = 0.02;
  std::vector<std::string> overrides, overlays;
};

struct Outcome {
  bool ok = false;
  double value = NAN;  // JCT (s) or capacity (APS)
  std::string binds;
};

std::string split_name(const analysis::PdSplit& s) { return std::to_string(s.P) + "P" + std::to_string(s.D) + "D"; }

Outcome read_outcome(const std::string& dir, const std::string& objective, const std::string& policy) {
  Outcome o;
  try {
    if (objective == "jct") {
      std::ifstream in(dir + "/summary.json");
      const auto s = nlohmann::json::parse(in);
      if (!s.at("complete").get<bool>()) return o;
      o.value = s.at("results").at("jct_s").get<double>();
      o.binds = s.at("waits").at("ttft").value("binds", "");
    } else {
      std::ifstream in(dir + "/capacity.json");
      const auto c = nlohmann::json::parse(in);
      const auto& p = c.at("policies").at(policy);
      o.value = p.at("capacity_aps").get<double>();
      o.binds = p.value("binds_at_capacity", "");
    }
    o.ok = true;
  } catch (const std::exception&) {
    o.ok = false;
  }
  return o;
}

void plan(const PlanArgs& a) {
  if (a.nodes < 2) throw InputError("--nodes " + std::to_string(a.nodes), "expected at least 2 nodes (one P, one D)");
  if (!(a.resolution > 0 && a.resolution < 1))
    throw InputError("--resolution", "expected a fraction in (0, 1), e.g. 0.02, found " + std::to_string(a.resolution));
  const Scenario sc = load_scenario(a.scenario, a.overrides, a.overlays);
  const std::string policy = a.policy.empty() ? sc.policy.name : a.policy;
  {
    PolicySpec spec = sc.policy;
    spec.name = policy;
    try {
      effective_features(spec);
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError("--policy " + policy, what.substr(what.find(": ") + 2));
    }
  }
  const bool online = sc.workload.mode == ArrivalMode::Online;
  if (a.objective == "jct" && online)
    throw InputError(a.scenario + ": /workload/mode",
                     "objective jct needs an offline scenario (all agents at t = 0); use --objective capacity for an "
                     "online one");
  if (a.objective == "capacity" && !online)
    throw InputError(a.scenario + ": /workload/mode",
                     "objective capacity needs an online scenario (--set workload.mode=online --set workload.aps=A "
                     "--set workload.duration=T)");
  const auto splits = analysis::enumerate_splits(sc, a.nodes);

  const nlohmann::json identity = {{"scenario", fs::absolute(a.scenario).lexically_normal().string()},
                                   {"overlays", a.overlays},
                                   {"set", a.overrides},
                                   {"objective", a.objective},
                                   {"resolution", a.objective == "capacity" ? nlohmann::json(a.resolution) : nlohmann::json()},
                                   {"policy", policy}};
  claim_output_folder(a.out, "plan.json", identity, "a plan");
  const std::string plan_path = a.out + "/plan.json";

  const unsigned jobs = a.jobs ? a.jobs : default_parallelism();
  char res_buf[32];
  std::snprintf(res_buf, sizeof res_buf, "%.6g", a.resolution);
  const std::string res_text = res_buf;
  std::vector<Outcome> outcomes(splits.size());
  std::vector<ChildJob> cj;
  std::vector<size_t> which;
  for (size_t i = 0; i < splits.size(); ++i) {
    const auto& s = splits[i];
    if (!s.feasible) continue;
    const std::string dir = a.out + "/splits/" + split_name(s);
    outcomes[i] = read_outcome(dir, a.objective, policy);
    if (outcomes[i].ok) continue;  // evaluated by an earlier plan with the same identity
    fs::create_directories(dir);
    ChildJob j;
    j.args = {a.objective == "jct" ? "run" : "capacity", a.scenario, "--out", dir};
    if (a.objective == "jct") j.args.insert(j.args.end(), {"--quiet", "--policy", policy});
    else
      j.args.insert(j.args.end(), {"--policy", policy, "--jobs", std::to_string(jobs), "--resolution", res_text});
    for (const auto& f : a.overlays) j.args.insert(j.args.end(), {"--overlay", f});
    for (const auto& o : a.overrides) j.args.insert(j.args.end(), {"--set", o});
    for (const std::string& o : std::vector<std::string>{
             "deployment.prefill_nodes=" + std::to_string(s.P), "deployment.decode_nodes=" + std::to_string(s.D),
             "deployment.pe_group_gpus=" + std::to_string(s.pe_group_gpus),
             "deployment.de_group_gpus=" + std::to_string(s.de_group_gpus)})
      j.args.insert(j.args.end(), {"--set", o});
    j.log_path = dir + "/plan.log";
    cj.push_back(std::move(j));
    which.push_back(i);
  }
  bool any_failed = false;
  if (!cj.empty()) {
    std::cerr << "plan: evaluating " << cj.size() << " split(s) of " << a.nodes << " nodes by " << a.objective << "\n";
    // Capacity searches run their own probes in parallel, so they go one at a time.
    run_child_jobs(cj, a.objective == "jct" ? jobs : 1, [](size_t) {}, [&](size_t k, int code) {
      const size_t i = which[k];
      const std::string dir = a.out + "/splits/" + split_name(splits[i]);
      outcomes[i] = code == 0 ? read_outcome(dir, a.objective, policy) : Outcome{};
      if (!outcomes[i].ok) {
        any_failed = true;
        std::cerr << "plan: " << split_name(splits[i]) << " failed (exit " << code
                  << "): " << log_tail(cj[k].log_path, 300) << "\n";
      } else {
        std::cerr << "plan: " << split_name(splits[i]) << ": " << outcomes[i].value << "\n";
      }
    });
  }

  // Best and runner-up among the evaluated splits.
  const bool lower_better = a.objective == "jct";
  int best = -1, second = -1;
  for (size_t i = 0; i < splits.size(); ++i) {
    if (!outcomes[i].ok) continue;
    auto better = [&](int x) { return x < 0 || (lower_better ? outcomes[i].value < outcomes[x].value
                                                              : outcomes[i].value > outcomes[x].value); };
    if (better(best)) second = best, best = static_cast<int>(i);
    else if (better(second)) second = static_cast<int>(i);
  }
  analysis::BandwidthParams bp{sc.topology.gpus_per_node, sc.topology.snic_bw / sc.topology.cnic_bw,
                               sc.topology.cnic_bw, sc.topology.dram_bw, 0};
  double lo = NAN, hi = NAN;
  bool have_range = false;
  analysis::BandwidthRange range;
  try {
    range = analysis::bottleneck_free_range(bp);
    lo = range.lower, hi = range.upper, have_range = !range.empty;
  } catch (const std::invalid_argument&) {
  }

  nlohmann::json out = {{"identity", identity}, {"nodes", a.nodes}, {"splits", nlohmann::json::array()}};
  out["analytic_pd_range"] = {{"lower", std::isfinite(lo) ? nlohmann::json(lo) : nlohmann::json()},
                              {"upper", std::isfinite(hi) ? nlohmann::json(hi) : nlohmann::json()}};
  const std::string unit = lower_better ? "JCT (s)" : "capacity (APS)";
  std::cout << "plan for " << a.nodes << " nodes of " << sc.name << ", policy " << policy << ", objective "
            << a.objective << "; §4.2 bottleneck-free range " << std::setprecision(3) << lo << " <= P/D <= " << hi
            << "\n";
  std::cout << std::left << std::setw(8) << "split" << std::setw(10) << "P/D" << std::setw(10) << "in range"
            << std::setw(14) << "EP groups" << std::setw(16) << unit << "binds\n";
  for (size_t i = 0; i < splits.size(); ++i) {
    const auto& s = splits[i];
    const bool inside = have_range && analysis::in_range(range, s.P, s.D);
    nlohmann::json e = {{"P", s.P},
                        {"D", s.D},
                        {"pe_group_gpus", s.pe_group_gpus},
                        {"de_group_gpus", s.de_group_gpus},
                        {"in_analytic_range", inside},
                        {"feasible", s.feasible}};
    std::ostringstream groups;
    groups << "EP" << s.pe_group_gpus << "/EP" << s.de_group_gpus;
    std::ostringstream val;
    if (!s.feasible) {
      e["why"] = s.why;
      val << "infeasible";
    } else if (!outcomes[i].ok) {
      val << "failed";
    } else {
      e[lower_better ? "jct_s" : "capacity_aps"] = outcomes[i].value;
      e["binds"] = outcomes[i].binds;
      val << std::setprecision(lower_better ? 5 : 4) << outcomes[i].value;
    }
    out["splits"].push_back(e);
    std::cout << std::left << std::setw(8) << split_name(s) << std::setw(10) << std::setprecision(3)
              << static_cast<double>(s.P) / s.D << std::setw(10) << (inside ? "yes" : "no") << std::setw(14)
              << groups.str() << std::setw(16) << val.str() << (outcomes[i].ok ? outcomes[i].binds : s.why) << "\n";
  }
  if (best >= 0) {
    const auto& b = splits[static_cast<size_t>(best)];
    nlohmann::json rec = {{"split", split_name(b)}, {"value", outcomes[static_cast<size_t>(best)].value},
                          {"binds", outcomes[static_cast<size_t>(best)].binds}};
    std::cout << "\nrecommended: " << split_name(b) << " (" << unit << " " << std::setprecision(5)
              << outcomes[static_cast<size_t>(best)].value
              << ", binds on " << outcomes[static_cast<size_t>(best)].binds << "; "
              << (have_range && analysis::in_range(range, b.P, b.D) ? "inside" : "outside")
              << " the §4.2 bottleneck-free range)";
    if (second >= 0) {
      const double vb = outcomes[static_cast<size_t>(best)].value, vs = outcomes[static_cast<size_t>(second)].value;
      const double margin = lower_better ? vs / vb - 1 : vb / vs - 1;
      rec["runner_up"] = split_name(splits[static_cast<size_t>(second)]);
      rec["margin"] = margin;
      std::cout << ", " << std::setprecision(3) << 100 * margin << "% better than the runner-up "
                << split_name(splits[static_cast<size_t>(second)]);
    }
    std::cout << "\n";
    out["recommendation"] = rec;
  } else {
    std::cout << "\nno split could be evaluated\n";
  }
  std::ofstream(plan_path) << std::setw(2) << out << "\n";
  std::cout << "results in " << plan_path << "\n";
  if (any_failed) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Evaluate every P/D split of N nodes and recommend the best");
  cmd->add_option("scenario", args->scenario, "Scenario JSON file (offline for jct, online for capacity)")->required();
  cmd->add_option("--nodes", args->nodes, "Nodes to split into P prefill + D decode (>= 2)")->required();
  cmd->add_option("--objective", args->objective, "jct (offline, lowest JCT) | capacity (online, highest APS)")
      ->check(CLI::IsMember({"jct", "capacity"}));
  cmd->add_option("--policy", args->policy, "Policy (default: the scenario's)");
  cmd->add_option("--resolution", args->resolution, "Capacity objective: the searches' resolution (default 0.02)");
  add_scenario_options(cmd, args->overrides, args->overlays, "Override a field for every split: path=value");
  cmd->add_option("--out", args->out, "Output folder (plan.json, splits/)")->required();
  cmd->add_option("--jobs", args->jobs, "Runs at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->callback([args] { plan(*args); });
}

}  // namespace dualpath::cli
