// dualpath plan SCENARIO (--nodes N | --budget GPUS) [--objective jct|capacity] [--policy P] [--vary KEY=V1,V2]...
//               [--resolution R] [--slo-ttft T] [--slo-tpot T]
//               [--jobs J] [--overlay F]... [--set k=v]... [--no-plot] --out DIR
//               [--shard I/N | --slurm N [--slurm-opt OPTS] [--submit]]
// Evaluates every P/D split with P + D = N (core/analysis/plan_splits.hpp: EP groups that fit each side, splits
// whose weights do not fit a GPU reported as infeasible), for every combination of the --vary values
// (core/analysis/vary_grid.hpp; --budget gives N per variant from its GPUs per node; --vary policy.name gives each
// variant its policy), and recommends the best:
//   - objective jct: the lowest JCT of an offline scenario, one `dualpath run` child per candidate, --jobs at a time;
//   - objective capacity: the highest SLO capacity of an online one, by one joint search over every split
//     (cli/plan_capacity.hpp: a lead split first, the others seeded from it, splits that cannot be the best dropped
//     with an upper bound), rounds of --jobs probes, resumable probe by probe.
// Explains the choice with the binding resource and the §4.2 bottleneck-free P/D range, and calls a tie a tie
// (cli/plan_report.hpp). Candidates already evaluated in DIR (same identity) are reused. --shard I/N evaluates
// only candidates with index % N == I (in the fixed order of variants and splits; a capacity shard searches each of
// its splits on its own, to the resolution) and writes no plan; --slurm N writes a Slurm array of N shards and a
// merge job (docs/slurm.md). Writes DIR/plan.json and DIR/plan.png (analysis/plot_plan.py). Exit 0, 1 when a
// candidate failed, 2 on bad input.
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

#include "cli/plan_band.hpp"
#include "cli/child_probes.hpp"
#include "cli/child_runs.hpp"
#include "cli/plan_capacity.hpp"
#include "cli/plan_ideal.hpp"
#include "cli/plan_inputs.hpp"
#include "cli/plan_report.hpp"
#include "cli/plan_target.hpp"
#include "cli/commands.hpp"
#include "core/config/units.hpp"
#include "core/study/output_folder.hpp"
#include "cli/plot_script.hpp"
#include "cli/scenario_options.hpp"
#include "cli/shard.hpp"
#include "cli/slurm_jobs.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/scenario_bandwidth.hpp"
#include "core/analysis/capacity_search.hpp"
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

// The most candidates (feasible splits of every variant) a plan evaluates unless --max-candidates raises it: each is
// at least one simulation, and --nodes 10000 once started 9,999 of them with no word of the cost. 500 covers every
// split of the paper's 1,152-GPU cluster (144 nodes) three times over.
constexpr size_t kDefaultMaxCandidates = 500;

struct PlanArgs {
  std::string band;  // --band: calibrations, one plan each (cli/band.hpp)
  std::string scenario, out, objective = "jct", policy;
  std::optional<int> nodes;
  std::optional<long long> budget;  // GPUs
  unsigned jobs = 0;
  double resolution = 0.02;
  bool resolution_given = false;  // --resolution on the command line (a JCT plan refuses it: it has no search)
  std::string slo_ttft, slo_tpot;  // capacity objective: passed to each split's search (default: the scenario's)
  bool no_plot = false;
  std::vector<std::string> overrides, overlays, vary;
  std::string shard;  // "I/N": evaluate only this slice of the candidates (cli/shard.hpp)
  SlurmArgs slurm;
  size_t max_candidates = kDefaultMaxCandidates;  // refused beyond, before anything is made (issue 68)
  std::string node_hour_cost, gpu_hour_cost;  // dollars: the answer's cost (core/analysis/plan_cost.hpp)
  analysis::Prices prices;                    // parsed from one of them
  bool ideal = false;  // --ideal: the Oracle's capacity and the §4.2 read bound beside each variant's best split
  std::optional<double> target_aps;  // the inverse question: the fewest nodes holding it (cli/plan_target.hpp)
  int max_nodes = 64;                // its search's largest cluster
};


// Keys that plan itself sets for each split; a --set or --vary of them would be overridden.
const char* const kSplitKeys[] = {"deployment.prefill_nodes", "deployment.decode_nodes", "deployment.pe_group_gpus",
                                  "deployment.de_group_gpus"};

void refuse_split_keys(const std::string& option, const std::string& key) {
  for (const char* k : kSplitKeys)
    if (key == k) throw InputError(option + " " + key, "plan sets this for each P/D split; it cannot be set or varied");
}


void plan(PlanArgs a) {  // a copy: the prices are parsed into it
  const PlanObjective objective = choice_value(kPlanObjectives, a.objective);  // the option's check took only these
  if (a.ideal && (objective != PlanObjective::Capacity || a.target_aps))
    throw InputError("--ideal", "expected a capacity plan of a node count (--objective capacity with --nodes or "
                                "--budget): the Oracle's capacity and the read bound sit beside a split's capacity");
  if (a.target_aps) {
    check_target_question(*a.target_aps, a.max_nodes, objective == PlanObjective::Capacity, a.resolution_given);
  } else if (!a.nodes && !a.budget) {
    throw InputError("plan", "expected the cluster size: --nodes N or --budget GPUS (or --target-aps X)");
  }
  if (a.nodes && (*a.nodes < 2 || *a.nodes > analysis::kMaxPlanNodes))
    throw InputError("--nodes " + std::to_string(*a.nodes), "expected 2 (one P, one D) to " +
                                                                 std::to_string(analysis::kMaxPlanNodes) + " nodes");
  if (a.budget && *a.budget <= 0) throw InputError("--budget " + std::to_string(*a.budget), "expected a GPU count > 0");
  for (const auto& [flag, text, per_gpu] : {std::tuple<const char*, std::string, bool>{"--node-hour-cost", a.node_hour_cost, false},
                                            {"--gpu-hour-cost", a.gpu_hour_cost, true}}) {
    if (text.empty()) continue;
    try {
      a.prices = analysis::parse_prices(text, per_gpu);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string(flag) + " " + text, e.what());
    }
  }
  if (!(a.resolution >= analysis::kMinResolution && a.resolution < 1))
    throw InputError("--resolution", "expected a fraction in [" + analysis::load_text(analysis::kMinResolution) +
                                         ", 1), e.g. 0.02, found " + analysis::load_text(a.resolution));
  if (a.resolution_given && objective != PlanObjective::Capacity)
    throw InputError("--resolution", "a search resolution applies to --objective capacity (a JCT plan runs each "
                                     "split once and searches nothing)");
  for (const auto& [flag, text] : {std::pair<const char*, const std::string&>{"--slo-ttft", a.slo_ttft},
                                    {"--slo-tpot", a.slo_tpot}}) {
    if (text.empty()) continue;
    if (objective != PlanObjective::Capacity)
      throw InputError(flag, "an SLO limit applies to --objective capacity (a JCT plan has no SLO to meet)");
    positive_duration(flag, text);
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
    if (axes.back().key == "policy.name" && !a.policy.empty())
      throw InputError("--vary policy.name", "--policy fixes every split's policy; give --policy or vary policy.name, "
                                             "not both (e.g. --vary policy.name=basic,dualpath)");
  }
  const auto grid = analysis::variant_grid(axes);

  const Scenario base = load_scenario(a.scenario, a.overrides, a.overlays);
  if (!a.band.empty()) {
    if (!a.shard.empty() || a.slurm.shards > 0)
      throw InputError("--band", "runs one plan per calibration; shard a single-calibration plan instead");
    return plan_band(a.band, a.out, a.target_aps, a.objective == "capacity", base);
  }
  const std::string policy = a.policy.empty() ? base.policy.name : a.policy;
  auto features_of = [&](const PolicySpec& from, const std::string& name) {
    PolicySpec spec = from;
    spec.name = name;
    try {
      return effective_features(spec);
    } catch (const InputError& e) {
      const std::string what = e.what();
      throw InputError("--policy " + name, what.substr(what.find(": ") + 2));
    }
  };
  features_of(base.policy, policy);
  check_objective(base, objective, a.scenario);
  check_runnable(base, a.scenario);  // a --set every split would refuse: exit 2 now, not a failed probe

  // Every variant's scenario is loaded (and so validated) before anything runs.
  std::vector<VariantPlan> plans;
  std::vector<Scenario> variant_scenarios;  // the inverse question enumerates each variant's splits per node count
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
    check_objective(sc, objective, axes.empty() ? a.scenario : "--vary " + vp.variant.label);
    vp.nodes = a.target_aps ? 0 : a.budget ? analysis::budget_nodes(*a.budget, sc.topology.gpus_per_node) : *a.nodes;
    if (!a.target_aps) vp.splits = analysis::enumerate_splits(sc, vp.nodes);
    vp.outcomes.resize(vp.splits.size());
    const analysis::BandwidthParams bp = analysis::bandwidth_params(sc, /*with_pcie=*/false);
    vp.policy = a.policy.empty() ? sc.policy.name : a.policy;  // --vary policy.name sets it per variant
    const PolicyFeatures f = features_of(sc.policy, vp.policy);
    vp.dual_path = f.dual_path;
    vp.reads_from_storage = !f.dram_pool && !f.de_resident && !f.bypass_io;
    vp.bandwidth = bp;
    vp.read_efficiency = sc.topology.storage.client_read_efficiency;
    if (a.prices.priced())
      price_variant(a.prices, a.prices.per_gpu ? "--gpu-hour-cost " + a.gpu_hour_cost : "--node-hour-cost " + a.node_hour_cost,
                    sc, vp);
    try {
      vp.range = analysis::bottleneck_free_range(bp);
      vp.have_range = !vp.range.empty;
    } catch (const std::invalid_argument&) {
    }
    plans.push_back(std::move(vp));
    variant_scenarios.push_back(std::move(sc));
  }

  // What the plan will cost, before anything is made: its candidates and the simulations they take.
  size_t candidates = 0;
  for (const auto& vp : plans)
    for (const auto& s : vp.splits) candidates += s.feasible ? 1 : 0;
  const std::string size_text = std::to_string(candidates) + " candidate split(s) in " + std::to_string(plans.size()) +
                                " variant(s)";
  if (a.target_aps)
    std::cerr << "plan: the fewest nodes (2 to " << a.max_nodes << ") holding " << analysis::load_text(*a.target_aps)
              << " APS, per variant (" << plans.size() << "): each node count is probed at that rate split by split, "
              << "at most nodes - 1 probes a count, about 2 log2(nodes) counts\n";
  else if (candidates > a.max_candidates)
    throw InputError("--max-candidates " + std::to_string(a.max_candidates),
                     "this plan has " + size_text + ", each at least one simulation; narrow --nodes, --budget or "
                     "--vary, or raise --max-candidates to run them all");
  if (!a.target_aps)
    std::cerr << "plan: " << size_text << ": "
            << (objective == PlanObjective::Capacity
                    ? "each split's search takes 1 to " + std::to_string(analysis::CapacitySearchSpec{}.max_probes) +
                          " probes (splits that cannot win are dropped after a few): " + std::to_string(candidates) +
                          " to " + std::to_string(candidates * analysis::CapacitySearchSpec{}.max_probes) +
                          " simulations"
                    : std::to_string(candidates) + " simulations, one per split")
            << "\n";

  nlohmann::json identity = {{"scenario", fs::absolute(a.scenario).lexically_normal().string()},
                             {"overlays", a.overlays},
                             {"set", a.overrides},
                             {"objective", name_of(objective)},
                             {"resolution", objective == PlanObjective::Capacity ? nlohmann::json(a.resolution)
                                                                                 : nlohmann::json()},
                             {"policy", policy},
                             {"calibration", calibration_json(base)}};
  if (!a.slo_ttft.empty()) identity["slo_ttft"] = a.slo_ttft;
  if (!a.slo_tpot.empty()) identity["slo_tpot"] = a.slo_tpot;
  if (!a.vary.empty()) identity["vary"] = a.vary;
  if (a.budget) identity["budget_gpus"] = *a.budget;
  if (a.target_aps) identity["target_aps"] = *a.target_aps, identity["max_nodes"] = a.max_nodes;
  const std::optional<Shard> shard = parse_shard(a.shard);
  if (a.target_aps && (shard || a.slurm.shards > 0))
    throw InputError("--target-aps", "the inverse question runs in one process (each node count decides the next); "
                                     "give no --shard or --slurm");
  if (a.slurm.shards > 0) {
    if (shard) throw InputError("--shard", "--slurm writes the shards' job script itself; give one or the other");
    study::claim_output_folder(a.out, "plan.json", identity, "a plan");
    submit_slurm_jobs("plan", a.out, a.slurm);
    return;
  }
  study::claim_output_folder(a.out, "plan.json", identity, "a plan");
  const std::string plan_path = a.out + "/plan.json";
  if (a.target_aps) {
    TargetPlanSpec t;
    t.scenario = a.scenario, t.out = a.out, t.overlays = a.overlays, t.overrides = a.overrides;
    t.target_aps = *a.target_aps, t.max_nodes = a.max_nodes;
    t.ttft = a.slo_ttft.empty() ? base.slo.ttft : positive_duration("--slo-ttft", a.slo_ttft);
    t.tpot = a.slo_tpot.empty() ? base.slo.tpot : positive_duration("--slo-tpot", a.slo_tpot);
    t.ttft_only = base.workload.stop == StopMode::SloTtft;
    t.slots = a.jobs ? a.jobs : default_parallelism();
    t.varied = !axes.empty();
    t.prices = a.prices;
    t.identity = identity;
    if (!run_target_plan(t, plans, variant_scenarios)) throw CLI::RuntimeError(kExitFailure);
    return;
  }

  const unsigned jobs = a.jobs ? a.jobs : default_parallelism();
  auto candidate_name = [&](size_t vi, size_t i) {
    return (axes.empty() ? "" : plans[vi].variant.label + " ") + split_name(plans[vi].splits[i]);
  };
  bool any_failed = false;
  size_t evaluated = 0, others = 0;  // candidates this process evaluated; those left to other shards
  if (objective == PlanObjective::Capacity) {
    // One joint search over every split of every variant (cli/plan_capacity.hpp); a shard searches each of its
    // splits on its own, so that the merge finds them finished whatever the other shards did.
    CapacityPlanSpec spec;
    spec.scenario = a.scenario;
    spec.overlays = a.overlays;
    spec.ttft = a.slo_ttft.empty() ? base.slo.ttft : positive_duration("--slo-ttft", a.slo_ttft);
    spec.tpot = a.slo_tpot.empty() ? base.slo.tpot : positive_duration("--slo-tpot", a.slo_tpot);
    spec.ttft_only = base.workload.stop == StopMode::SloTtft;
    spec.resolution = a.resolution;
    spec.start = base.workload.aps;
    spec.slots = jobs;
    spec.joint = !shard;
    spec.identity = identity;
    std::vector<CapacityCandidate> cands;
    std::vector<std::pair<size_t, size_t>> which;
    size_t k = 0;
    for (size_t vi = 0; vi < plans.size(); ++vi) {
      auto& vp = plans[vi];
      for (size_t i = 0; i < vp.splits.size(); ++i) {
        const auto& s = vp.splits[i];
        if (!s.feasible) continue;
        if (!in_shard(shard, k++)) {
          ++others;
          continue;
        }
        const double prior = analysis::max_read_rate_snics(vp.bandwidth, s.P, s.D, vp.dual_path) *
                             vp.bandwidth.s * vp.bandwidth.B;
        cands.push_back({candidate_name(vi, i), vp.folder + "/" + split_name(s), vp.policy,
                         split_overrides(a.overrides, vp, s),
                         static_cast<int>(vi), prior});
        which.emplace_back(vi, i);
      }
    }
    std::cerr << "plan: searching the capacity of " << cands.size() << " split(s) together, " << jobs
              << " probe(s) at a time (resolution " << a.resolution * 100 << "%)\n";
    const auto results = search_capacities(spec, cands);
    for (size_t c = 0; c < results.size(); ++c) {
      const auto& r = results[c];
      const auto [vi, i] = which[c];
      Outcome& o = plans[vi].outcomes[i];
      o.ok = r.ok;
      o.search = r.state;
      o.probes = r.probes;
      o.lower_bound = r.lower_bound;
      o.binds = r.binds;
      o.prompt_tokens_per_s = r.prompt_tokens_per_s;
      o.generated_tokens_per_s = r.generated_tokens_per_s;
      o.read_per_agent = r.read_per_agent;
      o.value = r.capacity > 0 || r.state != "dropped" ? r.capacity : NAN;
      o.lowest_failing = r.lowest_failing ? *r.lowest_failing : NAN;
      if (r.dropped_below) {  // always of the same variant
        const auto [bv, bi] = which[*r.dropped_below];
        o.dropped_below = split_name(plans[bv].splits[bi]);
      }
      any_failed |= !r.ok;
      evaluated += r.reused < r.probes;
    }
    if (a.ideal && !shard) find_ideal(spec, a.overrides, plans);
  } else {
    std::vector<ChildJob> cj;
    std::vector<std::pair<size_t, size_t>> which;  // (variant, split) of each child
    std::vector<std::string> staging;               // where each child writes, renamed onto its folder when done
    size_t candidate = 0;                           // every feasible candidate's place in the fixed order (shards)
    for (size_t vi = 0; vi < plans.size(); ++vi) {
      auto& vp = plans[vi];
      for (size_t i = 0; i < vp.splits.size(); ++i) {
        const auto& s = vp.splits[i];
        if (!s.feasible) continue;
        const size_t k = candidate++;
        const std::string dir = vp.folder + "/" + split_name(s);
        vp.outcomes[i] = read_outcome(dir);
        if (vp.outcomes[i].ok) continue;  // evaluated by an earlier plan with the same identity, or another shard
        if (!in_shard(shard, k)) {
          ++others;
          continue;
        }
        fs::create_directories(vp.folder);
        staging.push_back(staging_folder(dir));  // per process, so that concurrent shards never share a folder
        fs::create_directories(staging.back());
        ChildJob j;
        j.args = {"run", a.scenario, "--out", staging.back(), "--quiet", "--policy", vp.policy};
        for (const auto& f : a.overlays) j.args.insert(j.args.end(), {"--overlay", f});
        for (const auto& o : split_overrides(a.overrides, vp, s)) j.args.insert(j.args.end(), {"--set", o});
        j.log_path = staging.back() + "/plan.log";
        cj.push_back(std::move(j));
        which.emplace_back(vi, i);
      }
    }
    evaluated = cj.size();
    if (!cj.empty()) {
      std::cerr << "plan: evaluating " << cj.size() << " candidate(s) by JCT\n";
      // Progress: each candidate as it starts and ends, with its time and an estimate of the time left (the mean
      // time per finished candidate times those not finished, over the parallel slots).
      const auto started = std::chrono::steady_clock::now();
      size_t finished = 0;
      auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
      };
      std::vector<std::chrono::steady_clock::time_point> start_of(cj.size());
      run_child_jobs(cj, jobs, [&](size_t k) {
        start_of[k] = std::chrono::steady_clock::now();
        const auto [vi, i] = which[k];
        std::cerr << "plan: " << candidate_name(vi, i) << " (" << k + 1 << " of " << cj.size()
                  << ") started; its log: " << cj[k].log_path << "\n";
      }, [&](size_t k, int code) {
        const auto [vi, i] = which[k];
        auto& vp = plans[vi];
        const std::string dir = vp.folder + "/" + split_name(vp.splits[i]);
        vp.outcomes[i] = code == 0 && publish_folder(staging[k], dir) ? read_outcome(dir) : Outcome{};
        ++finished;
        const double left = since(started) / static_cast<double>(finished) * static_cast<double>(cj.size() - finished) /
                            std::min<double>(jobs, static_cast<double>(std::max<size_t>(1, cj.size() - finished)));
        std::ostringstream eta;
        eta << std::fixed << std::setprecision(0) << since(start_of[k]) << " s; " << finished << " of " << cj.size()
            << " done" << (finished < cj.size() ? ", about " + std::to_string(std::lround(left)) + " s left" : "");
        if (!vp.outcomes[i].ok) {
          any_failed = true;
          std::cerr << "plan: " << candidate_name(vi, i) << " failed (exit " << code
                    << "): " << log_tail(cj[k].log_path, 300) << "\n";
        } else {
          std::cerr << "plan: " << candidate_name(vi, i) << ": JCT " << vp.outcomes[i].value << " s (" << eta.str()
                    << ")\n";
        }
      });
    }
  }
  if (shard) {  // the merge (the same command without --shard) writes plan.json and the plot
    std::cout << "plan: shard " << shard->text() << ": " << evaluated << " candidate(s) evaluated, " << others
              << " left to other shards" << (any_failed ? ", some failed" : "")
              << "; merge with the same command without --shard\n";
    if (any_failed) throw CLI::RuntimeError(kExitFailure);
    return;
  }

  bool policy_varied = false;
  for (const auto& ax : axes) policy_varied |= ax.key == "policy.name";
  std::ostringstream title;
  title << "plan for " << (a.budget ? std::to_string(*a.budget) + " GPUs" : std::to_string(*a.nodes) + " nodes") << " of "
        << base.name << ", policy " << (policy_varied ? "per variant" : policy) << ", objective " << name_of(objective);
  bool has_best = false;
  const nlohmann::json out = report_plan({objective, title.str(), !axes.empty(), a.resolution, identity, a.budget,
                                          a.prices},
                                         plans, has_best);
  write_json_atomically(plan_path, out);  // whole or absent, whatever kills the process
  std::cout << "results in " << plan_path << "\n";
  const std::string png = a.out + "/plan.png";
  if (!a.no_plot && has_best) run_plot_script("plan", "plot_plan.py", {plan_path, png}, png);
  if (any_failed) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Evaluate every P/D split of N nodes and recommend the best");
  cmd->add_option("scenario", args->scenario, "Scenario JSON file (offline for jct, online for capacity)")->required();
  auto* nodes = cmd->add_option("--nodes", args->nodes, "Nodes to split into P prefill + D decode (>= 2)");
  auto* target = cmd->add_option("--target-aps", args->target_aps,
                                 "The inverse question: the fewest nodes (and their splits) holding this many agents "
                                 "per second within the SLO (--objective capacity)")
                     ->excludes(nodes);
  cmd->add_option("--max-nodes", args->max_nodes, "With --target-aps: the largest cluster searched (default 64)")
      ->needs(target);
  cmd->add_option("--budget", args->budget,
                  "GPU budget instead of --nodes: as many whole nodes as it makes (per variant's GPUs per node)")
      ->excludes(nodes)
      ->excludes(target);
  cmd->add_option("--objective", args->objective, "jct (offline, lowest JCT) | capacity (online, highest APS)")
      ->check(CLI::IsMember(choice_names(kPlanObjectives)));
  cmd->add_option("--policy", args->policy, "Policy (default: the scenario's)");
  cmd->add_option("--vary", args->vary,
                  "KEY=V1,V2,...: also try each value of a --set path (repeatable; every combination is evaluated)");
  auto* resolution =
      cmd->add_option("--resolution", args->resolution, "Capacity objective: the searches' resolution (default 0.02)");
  cmd->add_option("--slo-ttft", args->slo_ttft, "Capacity objective: TTFT limit, e.g. \"4 s\" (default: the scenario's slo.ttft)");
  cmd->add_option("--slo-tpot", args->slo_tpot, "Capacity objective: TPOT limit, e.g. \"50 ms\" (default: the scenario's slo.tpot)");
  add_scenario_options(cmd, args->overrides, args->overlays, "Override a field for every split: path=value");
  cmd->add_option("--out", args->out, "Output folder (plan.json, plan.png, splits/)")->required();
  cmd->add_option("--jobs", args->jobs, "Runs at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--no-plot", args->no_plot, "Do not draw plan.png");
  // A price option given empty is refused, not read as "no price" (the plan would come back unpriced).
  const auto non_empty_price = [](const std::string& v) {
    return v.empty() ? std::string("expected a price or TOPOLOGY=PRICE,..., found an empty one") : std::string();
  };
  auto* node_cost = cmd->add_option("--node-hour-cost", args->node_hour_cost,
                                    "Dollars per node-hour: the answer's cost per agent and per million tokens; one "
                                    "price, or each topology's: hopper-8gpu-80g=98.32,h20-8gpu-96g=40")
                         ->check(non_empty_price);
  cmd->add_option("--gpu-hour-cost", args->gpu_hour_cost,
                  "Dollars per GPU-hour instead (times the node's GPUs); one price or TOPOLOGY=PRICE,...")
      ->excludes(node_cost)
      ->check(non_empty_price);
  cmd->add_flag("--ideal", args->ideal,
                "Capacity plans: beside each variant's best split, the Oracle's capacity on it (free KV loads; one more "
                "search each) and its §4.2 read bound");
  cmd->add_option("--max-candidates", args->max_candidates,
                  "Refuse a plan of more candidate splits than this, before running any (default " +
                      std::to_string(kDefaultMaxCandidates) + ")")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  add_shard_options(cmd, args->shard, args->slurm);
  cmd->add_option("--band", args->band,
                  "Plan once per calibration (comma-separated, e.g. ideal,paper-cluster) into <out>/<calibration>/ and "
                  "print the answer as a range with the calibration at each end (docs/calibration.md)");
  cmd->callback([args, resolution] {
    args->resolution_given = resolution->count() > 0;
    plan(*args);
  });
}

}  // namespace dualpath::cli
