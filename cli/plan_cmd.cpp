// dualpath plan SCENARIO (--nodes N | --budget GPUS) [--objective jct|capacity] [--policy P] [--vary KEY=V1,V2]...
//               [--resolution R] [--slo-ttft T] [--slo-tpot T]
//               [--jobs J] [--overlay F]... [--set k=v]... [--no-plot] --out DIR
//               [--shard I/N | --slurm N [--slurm-opt OPTS] [--submit]]
// Evaluates every P/D split with P + D = N (core/analysis/plan_splits.hpp: EP groups that fit each side, splits
// whose weights do not fit a GPU reported as infeasible), for every combination of the --vary values
// (core/analysis/vary_grid.hpp; --budget gives N per variant from its GPUs per node), and recommends the best:
// the lowest JCT of an offline scenario (objective jct: one `dualpath run` child per candidate, --jobs at a time),
// or the highest SLO capacity of an online one (objective capacity: one `dualpath capacity` child per candidate,
// each with --jobs probes). Explains the choice with the binding resource and the §4.2 bottleneck-free P/D range, and
// calls a tie a tie: capacity brackets that overlap, or JCTs within one run's spread (core/analysis/vary_grid.hpp).
// Candidates already evaluated in DIR (same identity) are reused; each runs in a staging folder renamed onto its
// own when it succeeds (a capacity search in SPLIT.partial, whose finished probes an interrupted plan keeps). --shard I/N evaluates only candidates with index % N == I (in the fixed order of variants
// and splits) and writes no plan; --slurm N writes a Slurm array of N shards and a merge job (docs/slurm.md).
// Writes DIR/plan.json and DIR/plan.png (analysis/plot_plan.py). Exit 0, 1 when a candidate failed, 2 on bad input.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "core/config/units.hpp"
#include "cli/output_folder.hpp"
#include "cli/plot_script.hpp"
#include "cli/scenario_options.hpp"
#include "cli/shard.hpp"
#include "cli/slurm_jobs.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/plan_splits.hpp"
#include "core/analysis/vary_grid.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/metrics/summary.hpp"
#include "core/run/summary_sections.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath::cli {
namespace {

namespace fs = std::filesystem;

struct PlanArgs {
  std::string scenario, out, objective = "jct", policy;
  std::optional<int> nodes;
  std::optional<long long> budget;  // GPUs
  unsigned jobs = 0;
  double resolution = 0.02;
  std::string slo_ttft, slo_tpot;  // capacity objective: passed to each split's search (default: the scenario's)
  bool no_plot = false;
  std::vector<std::string> overrides, overlays, vary;
  std::string shard;  // "I/N": evaluate only this slice of the candidates (cli/shard.hpp)
  SlurmArgs slurm;
};

struct Outcome {
  bool ok = false;
  double value = NAN;  // JCT (s) or capacity (APS)
  double lowest_failing = NAN;  // capacity: the bracket's upper end (NaN: no rate failed)
  std::string binds;
};

// One cluster variant (a combination of --vary values) and the splits evaluated for it.
struct VariantPlan {
  analysis::Variant variant;
  std::string folder;  // DIR/splits[/<variant folder>]
  int nodes = 0;
  std::vector<analysis::PdSplit> splits;
  std::vector<Outcome> outcomes;
  analysis::BandwidthRange range;
  bool have_range = false;
};

// Keys that plan itself sets for each split; a --set or --vary of them would be overridden.
const char* const kSplitKeys[] = {"deployment.prefill_nodes", "deployment.decode_nodes", "deployment.pe_group_gpus",
                                  "deployment.de_group_gpus"};

void refuse_split_keys(const std::string& option, const std::string& key) {
  for (const char* k : kSplitKeys)
    if (key == k) throw InputError(option + " " + key, "plan sets this for each P/D split; it cannot be set or varied");
}

std::string split_name(const analysis::PdSplit& s) { return std::to_string(s.P) + "P" + std::to_string(s.D) + "D"; }

Outcome read_outcome(const std::string& dir, const std::string& objective, const std::string& policy) {
  Outcome o;
  try {
    if (objective == "jct") {
      const RunFile f = read_run_file(dir + "/summary.json");
      if (!f.complete) return o;
      o.value = f.results.jct;
      o.binds = f.ttft_binds;
    } else {
      std::ifstream in(dir + "/capacity.json");
      const auto c = nlohmann::json::parse(in);
      const auto& p = c.at("policies").at(policy);
      o.value = p.at("capacity_aps").get<double>();
      if (p.contains("lowest_failing_aps") && p.at("lowest_failing_aps").is_number())
        o.lowest_failing = p.at("lowest_failing_aps").get<double>();
      o.binds = p.value("binds_at_capacity", "");
    }
    o.ok = true;
  } catch (const std::exception&) {
    o.ok = false;
  }
  return o;
}

void check_objective(const Scenario& sc, const std::string& objective, const std::string& where) {
  const bool online = sc.workload.mode == ArrivalMode::Online;
  if (objective == "jct" && online)
    throw InputError(where + ": /workload/mode",
                     "objective jct needs an offline scenario (all agents at t = 0); use --objective capacity for an "
                     "online one");
  if (objective == "capacity" && !online)
    throw InputError(where + ": /workload/mode",
                     "objective capacity needs an online scenario (--set workload.mode=online --set workload.aps=A "
                     "--set workload.duration=T)");
}

nlohmann::json range_json(const VariantPlan& v) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
  return v.have_range ? nlohmann::json{{"lower", num(v.range.lower)}, {"upper", num(v.range.upper)}}
                      : nlohmann::json{{"lower", nullptr}, {"upper", nullptr}};
}

void plan(const PlanArgs& a) {
  if (!a.nodes && !a.budget) throw InputError("plan", "expected the cluster size: --nodes N or --budget GPUS");
  if (a.nodes && *a.nodes < 2)
    throw InputError("--nodes " + std::to_string(*a.nodes), "expected at least 2 nodes (one P, one D)");
  if (a.budget && *a.budget <= 0) throw InputError("--budget " + std::to_string(*a.budget), "expected a GPU count > 0");
  if (!(a.resolution > 0 && a.resolution < 1))
    throw InputError("--resolution", "expected a fraction in (0, 1), e.g. 0.02, found " + std::to_string(a.resolution));
  for (const auto& [flag, text] : {std::pair<const char*, const std::string&>{"--slo-ttft", a.slo_ttft},
                                    {"--slo-tpot", a.slo_tpot}}) {
    if (text.empty()) continue;
    if (a.objective != "capacity")
      throw InputError(flag, "an SLO limit applies to --objective capacity (a JCT plan has no SLO to meet)");
    try {
      if (!(units::parse_duration(text) > 0)) throw InputError(std::string(flag) + " " + text, "expected a duration > 0");
    } catch (const units::UnitError& e) {
      throw InputError(std::string(flag) + " " + text, e.what());
    }
  }
  for (const auto& o : a.overrides) {
    std::string key = o.substr(0, o.find('='));  // dotted or slash-separated (docs/configuration.md)
    if (!key.empty() && key.front() == '/') key.erase(0, 1);
    std::replace(key.begin(), key.end(), '/', '.');
    refuse_split_keys("--set", key);
  }
  std::vector<analysis::VaryAxis> axes;
  for (const auto& v : a.vary) {
    axes.push_back(analysis::parse_vary(v));
    refuse_split_keys("--vary", axes.back().key);
  }
  const auto grid = analysis::variant_grid(axes);

  const Scenario base = load_scenario(a.scenario, a.overrides, a.overlays);
  const std::string policy = a.policy.empty() ? base.policy.name : a.policy;
  {
    PolicySpec spec = base.policy;
    spec.name = policy;
    try {
      effective_features(spec);
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError("--policy " + policy, what.substr(what.find(": ") + 2));
    }
  }
  check_objective(base, a.objective, a.scenario);

  // Every variant's scenario is loaded (and so validated) before anything runs.
  std::vector<VariantPlan> plans;
  for (size_t vi = 0; vi < grid.size(); ++vi) {
    VariantPlan vp;
    vp.variant = grid[vi];
    vp.folder = a.out + "/splits" + (axes.empty() ? "" : "/" + std::to_string(vi) + "-" + analysis::variant_slug(vp.variant));
    // A variant may change the GPUs per node so that the scenario's own groups no longer fit its own P and D;
    // groups of one GPU always do. The splits then take the scenario's group sizes where they fit.
    auto overrides = a.overrides;
    overrides.insert(overrides.end(), {"deployment.pe_group_gpus=1", "deployment.de_group_gpus=1"});
    Scenario sc = axes.empty() ? base : analysis::load_variant(a.scenario, overrides, vp.variant, a.overlays);
    sc.deployment.pe_group_gpus = base.deployment.pe_group_gpus;
    sc.deployment.de_group_gpus = base.deployment.de_group_gpus;
    check_objective(sc, a.objective, axes.empty() ? a.scenario : "--vary " + vp.variant.label);
    vp.nodes = a.budget ? analysis::budget_nodes(*a.budget, sc.topology.gpus_per_node) : *a.nodes;
    vp.splits = analysis::enumerate_splits(sc, vp.nodes);
    vp.outcomes.resize(vp.splits.size());
    analysis::BandwidthParams bp{sc.topology.gpus_per_node, sc.topology.snic_bw / sc.topology.cnic_bw,
                                 sc.topology.cnic_bw, sc.topology.dram_bw, 0};
    try {
      vp.range = analysis::bottleneck_free_range(bp);
      vp.have_range = !vp.range.empty;
    } catch (const std::invalid_argument&) {
    }
    plans.push_back(std::move(vp));
  }

  nlohmann::json identity = {{"scenario", fs::absolute(a.scenario).lexically_normal().string()},
                             {"overlays", a.overlays},
                             {"set", a.overrides},
                             {"objective", a.objective},
                             {"resolution", a.objective == "capacity" ? nlohmann::json(a.resolution) : nlohmann::json()},
                             {"policy", policy}};
  if (!a.slo_ttft.empty()) identity["slo_ttft"] = a.slo_ttft;
  if (!a.slo_tpot.empty()) identity["slo_tpot"] = a.slo_tpot;
  if (!a.vary.empty()) identity["vary"] = a.vary;
  if (a.budget) identity["budget_gpus"] = *a.budget;
  const std::optional<Shard> shard = parse_shard(a.shard);
  if (a.slurm.shards > 0) {
    if (shard) throw InputError("--shard", "--slurm writes the shards' job script itself; give one or the other");
    claim_output_folder(a.out, "plan.json", identity, "a plan");
    submit_slurm_jobs("plan", a.out, a.slurm);
    return;
  }
  claim_output_folder(a.out, "plan.json", identity, "a plan");
  const std::string plan_path = a.out + "/plan.json";

  const unsigned jobs = a.jobs ? a.jobs : default_parallelism();
  char res_buf[32];
  std::snprintf(res_buf, sizeof res_buf, "%.6g", a.resolution);
  const std::string res_text = res_buf;
  std::vector<ChildJob> cj;
  std::vector<std::pair<size_t, size_t>> which;  // (variant, split) of each child
  std::vector<std::string> staging;               // where each child writes, renamed onto its folder when done
  size_t candidate = 0, others = 0;               // every feasible candidate's place in the fixed order (shards)
  for (size_t vi = 0; vi < plans.size(); ++vi) {
    auto& vp = plans[vi];
    for (size_t i = 0; i < vp.splits.size(); ++i) {
      const auto& s = vp.splits[i];
      if (!s.feasible) continue;
      const size_t k = candidate++;
      const std::string dir = vp.folder + "/" + split_name(s);
      vp.outcomes[i] = read_outcome(dir, a.objective, policy);
      if (vp.outcomes[i].ok) continue;  // evaluated by an earlier plan with the same identity, or another shard
      if (!in_shard(shard, k)) {
        ++others;
        continue;
      }
      fs::create_directories(vp.folder);
      // A capacity search keeps each finished probe (it is resumable at probe level), so it works in one fixed
      // folder per split: an interrupted plan, rerun, redoes only the probe that was running. A JCT run is one
      // child, staged per process so that concurrent shards never share a folder.
      staging.push_back(a.objective == "capacity" ? dir + ".partial" : staging_folder(dir));
      fs::create_directories(staging.back());
      ChildJob j;
      j.args = {a.objective == "jct" ? "run" : "capacity", a.scenario, "--out", staging.back()};
      if (a.objective == "jct") j.args.insert(j.args.end(), {"--quiet", "--policy", policy});
      else
        j.args.insert(j.args.end(), {"--policy", policy, "--jobs", std::to_string(jobs), "--resolution", res_text,
                                     "--no-plot"});
      if (a.objective == "capacity") {
        if (!a.slo_ttft.empty()) j.args.insert(j.args.end(), {"--slo-ttft", a.slo_ttft});
        if (!a.slo_tpot.empty()) j.args.insert(j.args.end(), {"--slo-tpot", a.slo_tpot});
      }
      for (const auto& f : a.overlays) j.args.insert(j.args.end(), {"--overlay", f});
      std::vector<std::string> sets = a.overrides;
      sets.insert(sets.end(), vp.variant.overrides.begin(), vp.variant.overrides.end());
      sets.insert(sets.end(), {"deployment.prefill_nodes=" + std::to_string(s.P),
                               "deployment.decode_nodes=" + std::to_string(s.D),
                               "deployment.pe_group_gpus=" + std::to_string(s.pe_group_gpus),
                               "deployment.de_group_gpus=" + std::to_string(s.de_group_gpus)});
      for (const auto& o : sets) j.args.insert(j.args.end(), {"--set", o});
      j.log_path = staging.back() + "/plan.log";
      cj.push_back(std::move(j));
      which.emplace_back(vi, i);
    }
  }
  auto candidate_name = [&](size_t vi, size_t i) {
    return (axes.empty() ? "" : plans[vi].variant.label + " ") + split_name(plans[vi].splits[i]);
  };
  bool any_failed = false;
  if (!cj.empty()) {
    std::cerr << "plan: evaluating " << cj.size() << " candidate(s) by " << a.objective << "\n";
    // Capacity searches run their own probes in parallel, so they go one at a time.
    // Progress: each candidate as it starts and ends, with its bracket, its time and an estimate of the time left
    // (the mean time per finished candidate times those not finished, over the parallel slots).
    const auto started = std::chrono::steady_clock::now();
    const unsigned slots = a.objective == "jct" ? jobs : 1;
    size_t finished = 0;
    auto since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    std::vector<std::chrono::steady_clock::time_point> start_of(cj.size());
    run_child_jobs(cj, slots, [&](size_t k) {
      start_of[k] = std::chrono::steady_clock::now();
      const auto [vi, i] = which[k];
      std::cerr << "plan: " << candidate_name(vi, i) << " (" << k + 1 << " of " << cj.size() << ") started; its log: "
                << cj[k].log_path << "\n";
    }, [&](size_t k, int code) {
      const auto [vi, i] = which[k];
      auto& vp = plans[vi];
      const std::string dir = vp.folder + "/" + split_name(vp.splits[i]);
      vp.outcomes[i] = code == 0 && publish_folder(staging[k], dir) ? read_outcome(dir, a.objective, policy) : Outcome{};
      ++finished;
      const double left = since(started) / static_cast<double>(finished) * static_cast<double>(cj.size() - finished) /
                          std::min<double>(slots, static_cast<double>(std::max<size_t>(1, cj.size() - finished)));
      std::ostringstream eta;
      eta << std::fixed << std::setprecision(0) << since(start_of[k]) << " s; " << finished << " of " << cj.size()
          << " done" << (finished < cj.size() ? ", about " + std::to_string(std::lround(left)) + " s left" : "");
      if (!vp.outcomes[i].ok) {
        any_failed = true;
        std::cerr << "plan: " << candidate_name(vi, i) << " failed (exit " << code
                  << "): " << log_tail(cj[k].log_path, 300) << "\n";
      } else if (a.objective == "jct") {
        std::cerr << "plan: " << candidate_name(vi, i) << ": JCT " << vp.outcomes[i].value << " s (" << eta.str()
                  << ")\n";
      } else {
        std::cerr << "plan: " << candidate_name(vi, i) << ": capacity " << vp.outcomes[i].value << " APS"
                  << (std::isfinite(vp.outcomes[i].lowest_failing)
                          ? ", fails at " + std::to_string(vp.outcomes[i].lowest_failing) : std::string())
                  << " (" << eta.str() << ")\n";
      }
    });
  }
  if (shard) {  // the merge (the same command without --shard) writes plan.json and the plot
    std::cout << "plan: shard " << shard->text() << ": " << cj.size() << " candidate(s) evaluated, " << others
              << " left to other shards" << (any_failed ? ", some failed" : "")
              << "; merge with the same command without --shard\n";
    if (any_failed) throw CLI::RuntimeError(kExitFailure);
    return;
  }

  const bool lower_better = a.objective == "jct";
  const std::string unit = lower_better ? "JCT (s)" : "capacity (APS)";
  auto margin_of = [&](double best, double next) { return lower_better ? next / best - 1 : best / next - 1; };
  nlohmann::json out = {{"identity", identity}, {"objective", a.objective}, {"splits", nlohmann::json::array()}};
  if (a.budget) out["budget_gpus"] = *a.budget;
  if (plans.size() == 1) out["nodes"] = plans[0].nodes;
  out["analytic_pd_range"] = range_json(plans[0]);
  std::vector<std::optional<double>> all_values;
  std::vector<std::pair<size_t, size_t>> all_index;
  std::cout << "plan for " << (a.budget ? std::to_string(*a.budget) + " GPUs" : std::to_string(*a.nodes) + " nodes")
            << " of " << base.name << ", policy " << policy << ", objective " << a.objective << "\n";
  for (size_t vi = 0; vi < plans.size(); ++vi) {
    const auto& vp = plans[vi];
    std::cout << "\n";
    if (!axes.empty()) std::cout << "variant " << vp.variant.label << ": ";
    std::cout << vp.nodes << " nodes; §4.2 bottleneck-free range " << std::setprecision(3) << vp.range.lower
              << " <= P/D <= " << vp.range.upper << (vp.have_range ? "" : " (empty)") << "\n";
    std::cout << std::left << std::setw(8) << "split" << std::setw(10) << "P/D" << std::setw(10) << "in range"
              << std::setw(14) << "EP groups" << std::setw(lower_better ? 16 : 22)
              << (lower_better ? unit : std::string("APS < fails at")) << "binds\n";
    std::vector<std::optional<double>> values;
    for (size_t i = 0; i < vp.splits.size(); ++i) {
      const auto& s = vp.splits[i];
      const auto& o = vp.outcomes[i];
      const bool inside = vp.have_range && analysis::in_range(vp.range, s.P, s.D);
      nlohmann::json e = {{"P", s.P},
                          {"D", s.D},
                          {"pe_group_gpus", s.pe_group_gpus},
                          {"de_group_gpus", s.de_group_gpus},
                          {"in_analytic_range", inside},
                          {"feasible", s.feasible}};
      if (!axes.empty()) e["variant"] = vp.variant.label;
      std::ostringstream groups, val;
      groups << "EP" << s.pe_group_gpus << "/EP" << s.de_group_gpus;
      if (!s.feasible) {
        e["why"] = s.why;
        val << "infeasible";
      } else if (!o.ok) {
        val << "failed";
      } else {
        e[lower_better ? "jct_s" : "capacity_aps"] = o.value;
        e["binds"] = o.binds;
        val << std::setprecision(lower_better ? 5 : 4) << o.value;
        if (!lower_better) {
          e["lowest_failing_aps"] = std::isfinite(o.lowest_failing) ? nlohmann::json(o.lowest_failing) : nlohmann::json();
          if (std::isfinite(o.lowest_failing)) val << " < " << std::setprecision(4) << o.lowest_failing;
        }
      }
      out["splits"].push_back(e);
      values.push_back(o.ok ? std::optional<double>(o.value) : std::nullopt);
      all_values.push_back(values.back());
      all_index.emplace_back(vi, i);
      std::cout << std::left << std::setw(8) << split_name(s) << std::setw(10) << std::setprecision(3)
                << static_cast<double>(s.P) / s.D << std::setw(10) << (inside ? "yes" : "no") << std::setw(14)
                << groups.str() << std::setw(lower_better ? 16 : 22) << val.str() << (o.ok ? o.binds : s.why) << "\n";
    }
    if (!axes.empty()) {
      const auto bt = analysis::best_two(values, lower_better);
      nlohmann::json v = {{"label", vp.variant.label}, {"set", vp.variant.overrides}, {"nodes", vp.nodes},
                          {"analytic_pd_range", range_json(vp)}};
      if (bt.best) {
        v["best"] = split_name(vp.splits[*bt.best]);
        std::cout << "best for this variant: " << split_name(vp.splits[*bt.best]);
        if (bt.runner_up) {
          const double m = margin_of(*values[*bt.best], *values[*bt.runner_up]);
          v["runner_up"] = split_name(vp.splits[*bt.runner_up]);
          v["margin"] = m;
          std::cout << ", " << std::setprecision(3) << 100 * m << "% ahead of " << split_name(vp.splits[*bt.runner_up]);
        }
        std::cout << "\n";
      }
      out["variants"].push_back(v);
    }
  }

  const auto bt = analysis::best_two(all_values, lower_better);
  if (bt.best) {
    const auto [bv, bi] = all_index[*bt.best];
    const auto& b = plans[bv];
    const Outcome& bo = b.outcomes[bi];
    nlohmann::json rec = {{"split", split_name(b.splits[bi])}, {"value", bo.value}, {"binds", bo.binds}};
    if (!axes.empty()) rec["variant"] = b.variant.label;
    std::cout << "\nrecommended: " << candidate_name(bv, bi) << " (" << unit << " " << std::setprecision(5) << bo.value
              << ", binds on " << bo.binds << "; "
              << (b.have_range && analysis::in_range(b.range, b.splits[bi].P, b.splits[bi].D) ? "inside" : "outside")
              << " the §4.2 bottleneck-free range)";
    bool tie = false;
    if (bt.runner_up) {
      const auto [rv, ri] = all_index[*bt.runner_up];
      const Outcome& ro = plans[rv].outcomes[ri];
      const double margin = margin_of(bo.value, ro.value);
      tie = lower_better ? !analysis::jct_ahead(bo.value, ro.value)
                         : !analysis::capacity_ahead(bo.value, ro.lowest_failing);
      rec["runner_up"] = split_name(plans[rv].splits[ri]);
      if (!axes.empty()) rec["runner_up_variant"] = plans[rv].variant.label;
      rec["margin"] = margin;
      if (!tie) {
        std::cout << ", " << std::setprecision(3) << 100 * margin << "% better than the runner-up "
                  << candidate_name(rv, ri);
      } else {
        // Not a winner: the evaluation cannot separate the two (overlapping brackets, or JCTs within one run's
        // spread). Say what would.
        std::cout << "\nbut it is a TIE with " << candidate_name(rv, ri) << ", not a winner: ";
        if (lower_better)
          std::cout << "their JCTs are " << std::setprecision(3) << 100 * margin << "% apart, within the "
                    << 100 * analysis::kJctTieMargin << "% one run moves under a tiny perturbation";
        else
          std::cout << "its capacity " << std::setprecision(5) << bo.value << " APS is below the other's lowest "
                    << "failing rate " << ro.lowest_failing << " APS, so the brackets overlap; a finer --resolution "
                    << "(now " << a.resolution << ") or --objective jct on an offline run would separate them";
      }
    }
    rec["tie"] = tie;
    std::cout << "\n";
    out["recommendation"] = rec;
  } else {
    std::cout << "\nno split could be evaluated\n";
  }
  std::ofstream(plan_path) << std::setw(2) << out << "\n";
  std::cout << "results in " << plan_path << "\n";
  const std::string png = a.out + "/plan.png";
  if (!a.no_plot && bt.best) run_plot_script("plan", "plot_plan.py", {plan_path, png}, png);
  if (any_failed) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Evaluate every P/D split of N nodes and recommend the best");
  cmd->add_option("scenario", args->scenario, "Scenario JSON file (offline for jct, online for capacity)")->required();
  auto* nodes = cmd->add_option("--nodes", args->nodes, "Nodes to split into P prefill + D decode (>= 2)");
  cmd->add_option("--budget", args->budget,
                  "GPU budget instead of --nodes: as many whole nodes as it makes (per variant's GPUs per node)")
      ->excludes(nodes);
  cmd->add_option("--objective", args->objective, "jct (offline, lowest JCT) | capacity (online, highest APS)")
      ->check(CLI::IsMember({"jct", "capacity"}));
  cmd->add_option("--policy", args->policy, "Policy (default: the scenario's)");
  cmd->add_option("--vary", args->vary,
                  "KEY=V1,V2,...: also try each value of a --set path (repeatable; every combination is evaluated)");
  cmd->add_option("--resolution", args->resolution, "Capacity objective: the searches' resolution (default 0.02)");
  cmd->add_option("--slo-ttft", args->slo_ttft, "Capacity objective: TTFT limit, e.g. \"4 s\" (default: the scenario's slo.ttft)");
  cmd->add_option("--slo-tpot", args->slo_tpot, "Capacity objective: TPOT limit, e.g. \"50 ms\" (default: the scenario's slo.tpot)");
  add_scenario_options(cmd, args->overrides, args->overlays, "Override a field for every split: path=value");
  cmd->add_option("--out", args->out, "Output folder (plan.json, plan.png, splits/)")->required();
  cmd->add_option("--jobs", args->jobs, "Runs at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--no-plot", args->no_plot, "Do not draw plan.png");
  add_shard_options(cmd, args->shard, args->slurm);
  cmd->callback([args] { plan(*args); });
}

}  // namespace dualpath::cli
