#include "core/study/plan_study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/capacity_search.hpp"
#include "core/analysis/plan_splits.hpp"
#include "core/analysis/scenario_bandwidth.hpp"
#include "core/config/calibration.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/study/capacity_study.hpp"
#include "core/study/output_folder.hpp"
#include "core/study/plan_capacity.hpp"
#include "core/study/plan_ideal.hpp"
#include "core/study/plan_inputs.hpp"
#include "core/study/plan_target.hpp"
#include "core/study/probe.hpp"
#include "core/study/probe_memory.hpp"
#include "core/study/run_folders.hpp"
#include "core/study/runnable.hpp"
#include "core/study/study_streams.hpp"

namespace dualpath::study {
namespace {

namespace fs = std::filesystem;

// Keys that plan itself sets for each split; a --set or --vary of them would be overridden.
const char* const kSplitKeys[] = {"deployment.prefill_nodes", "deployment.decode_nodes", "deployment.pe_group_gpus",
                                  "deployment.de_group_gpus"};

void refuse_split_keys(const std::string& option, const std::string& key) {
  for (const char* k : kSplitKeys)
    if (key == k) throw InputError(option + " " + key, "plan sets this for each P/D split; it cannot be set or varied");
}

// The cluster size, the prices and the capacity objective's own options.
void check_sizes_and_prices(const PlanStudySpec& a, PlanObjective objective, PlanInputs& in) {
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
  for (const auto& [flag, text, per_gpu] :
       {std::tuple<const char*, std::string, bool>{"--node-hour-cost", a.node_hour_cost, false},
        {"--gpu-hour-cost", a.gpu_hour_cost, true}}) {
    if (text.empty()) continue;
    try {
      in.prices = analysis::parse_prices(text, per_gpu);
    } catch (const std::invalid_argument& e) {
      throw InputError(std::string(flag) + " " + text, e.what());
    }
  }
  check_resolution(a.resolution);
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
}

}  // namespace

PlanInputs read_plan_inputs(const PlanStudySpec& a) {
  PlanInputs in;
  const auto it = std::find_if(std::begin(kPlanObjectives), std::end(kPlanObjectives),
                               [&](const auto& c) { return a.objective == c.name; });
  if (it == std::end(kPlanObjectives))
    throw InputError("--objective " + a.objective, "expected jct or capacity");
  in.objective = it->value;
  check_sizes_and_prices(a, in.objective, in);
  for (const auto& o : a.overrides) {
    std::string key = o.substr(0, o.find('='));  // dotted or slash-separated (docs/configuration.md)
    if (!key.empty() && key.front() == '/') key.erase(0, 1);
    std::replace(key.begin(), key.end(), '/', '.');
    refuse_split_keys("--set", key);
  }
  for (const auto& v : a.vary) {
    in.axes.push_back(analysis::parse_vary(v));
    refuse_split_keys("--vary", in.axes.back().key);
    if (in.axes.back().key == "policy.name" && !a.policy.empty())
      throw InputError("--vary policy.name", "--policy fixes every split's policy; give --policy or vary policy.name, "
                                             "not both (e.g. --vary policy.name=basic,dualpath)");
  }
  in.base = load_scenario(a.scenario, a.overrides, a.overlays);
  return in;
}

PlanSetup setup_plan(const PlanStudySpec& a, const PlanInputs& in) {
  const Scenario& base = in.base;
  const auto grid = analysis::variant_grid(in.axes);
  PlanSetup st;
  st.policy = a.policy.empty() ? base.policy.name : a.policy;
  features_at(base.policy, st.policy, "--policy " + st.policy);
  check_objective(base, in.objective, a.scenario);
  check_runnable(base, a.scenario);  // a --set every split would refuse: exit 2 now, not a failed probe

  // Every variant's scenario is loaded (and so validated) before anything runs.
  for (size_t vi = 0; vi < grid.size(); ++vi) {
    VariantPlan vp;
    vp.variant = grid[vi];
    vp.folder = a.out + "/splits";
    if (!in.axes.empty()) {
      vp.folder += "/";
      vp.folder += std::to_string(vi);
      vp.folder += "-";
      vp.folder += analysis::variant_slug(vp.variant);
    }
    // A variant may change the GPUs per node so that the scenario's own groups no longer fit its own P and D;
    // groups of one GPU always do. The splits then take the scenario's group sizes where they fit.
    auto overrides = a.overrides;
    overrides.insert(overrides.end(), {"deployment.pe_group_gpus=1", "deployment.de_group_gpus=1"});
    Scenario sc = in.axes.empty() ? base : analysis::load_variant(a.scenario, overrides, vp.variant, a.overlays);
    sc.deployment.pe_group_gpus = base.deployment.pe_group_gpus;
    sc.deployment.de_group_gpus = base.deployment.de_group_gpus;
    check_objective(sc, in.objective, in.axes.empty() ? a.scenario : "--vary " + vp.variant.label);
    vp.nodes = a.target_aps ? 0 : a.budget ? analysis::budget_nodes(*a.budget, sc.topology.gpus_per_node) : *a.nodes;
    if (!a.target_aps) vp.splits = analysis::enumerate_splits(sc, vp.nodes);
    vp.outcomes.resize(vp.splits.size());
    const analysis::BandwidthParams bp = analysis::bandwidth_params(sc, /*with_pcie=*/false);
    vp.policy = a.policy.empty() ? sc.policy.name : a.policy;  // --vary policy.name sets it per variant
    const PolicyFeatures f = features_at(sc.policy, vp.policy, "--policy " + vp.policy);
    vp.dual_path = f.dual_path;
    vp.reads_from_storage = !f.dram_pool && !f.de_resident && !f.bypass_io;
    vp.bandwidth = bp;
    vp.read_efficiency = sc.topology.storage.client_read_efficiency;
    if (in.prices.priced())
      price_variant(in.prices,
                    in.prices.per_gpu ? "--gpu-hour-cost " + a.gpu_hour_cost : "--node-hour-cost " + a.node_hour_cost,
                    sc, vp);
    try {
      vp.range = analysis::bottleneck_free_range(bp);
      vp.have_range = !vp.range.empty;
    } catch (const std::invalid_argument&) {
    }
    // The inverse question probes every split at the target: a rate whose probes cannot fit is refused now.
    if (a.target_aps)
      ProbeMemory(sc).check(*a.target_aps, sc.workload.duration, "--target-aps " + analysis::load_text(*a.target_aps));
    st.plans.push_back(std::move(vp));
    st.scenarios.push_back(std::move(sc));
  }

  // What the plan will cost, before anything is made: its candidates and the simulations they take.
  size_t candidates = 0;
  for (const auto& vp : st.plans)
    for (const auto& s : vp.splits) candidates += s.feasible ? 1 : 0;
  const std::string size_text = std::to_string(candidates) + " candidate split(s) in " +
                                std::to_string(st.plans.size()) + " variant(s)";
  if (a.target_aps)
    study_log() << "plan: the fewest nodes (2 to " << a.max_nodes << ") holding " << analysis::load_text(*a.target_aps)
                << " APS, per variant (" << st.plans.size() << "): each node count is probed at that rate split by "
                << "split, at most nodes - 1 probes a count, about 2 log2(nodes) counts\n";
  else if (candidates > a.max_candidates)
    throw InputError("--max-candidates " + std::to_string(a.max_candidates),
                     "this plan has " + size_text + ", each at least one simulation; narrow --nodes, --budget or "
                     "--vary, or raise --max-candidates to run them all");
  const int max_probes = analysis::CapacitySearchSpec{}.max_probes;
  if (!a.target_aps)
    study_log() << "plan: " << size_text << ": "
                << (in.objective == PlanObjective::Capacity
                        ? "each split's search takes 1 to " + std::to_string(max_probes) +
                              " probes (splits that cannot win are dropped after a few): " +
                              std::to_string(candidates) + " to " + std::to_string(candidates * max_probes) +
                              " simulations"
                        : std::to_string(candidates) + " simulations, one per split")
                << "\n";

  st.identity = {{"scenario", fs::absolute(a.scenario).lexically_normal().string()},
                 {"overlays", a.overlays},
                 {"set", a.overrides},
                 {"objective", name_of(in.objective)},
                 {"resolution", in.objective == PlanObjective::Capacity ? nlohmann::json(a.resolution)
                                                                        : nlohmann::json()},
                 {"policy", st.policy},
                 {"calibration", calibration_json(base)}};
  if (!a.slo_ttft.empty()) st.identity["slo_ttft"] = a.slo_ttft;
  if (!a.slo_tpot.empty()) st.identity["slo_tpot"] = a.slo_tpot;
  if (!a.vary.empty()) st.identity["vary"] = a.vary;
  if (a.budget) st.identity["budget_gpus"] = *a.budget;
  if (a.target_aps) st.identity["target_aps"] = *a.target_aps, st.identity["max_nodes"] = a.max_nodes;
  if (a.target_aps && a.shard)
    throw InputError("--target-aps", "the inverse question runs in one process (each node count decides the next); "
                                     "give no --shard or --slurm");
  return st;
}

namespace {

std::string candidate_name(const PlanInputs& in, const std::vector<VariantPlan>& plans, size_t vi, size_t i) {
  return (in.axes.empty() ? "" : plans[vi].variant.label + " ") + split_name(plans[vi].splits[i]);
}

double slo_or(const std::string& flag, const std::string& text, double scenario_value) {
  return text.empty() ? scenario_value : positive_duration(flag, text);
}

// One joint search over every split of every variant (core/study/plan_capacity.hpp); a shard searches each of its
// splits on its own, so that the merge finds them finished whatever the other shards did. Returns the candidates
// this process evaluated and counts in `others` those left to other shards.
size_t capacity_plan(const PlanStudySpec& a, const PlanInputs& in, PlanSetup& st, ProbeRunner& runner, unsigned jobs,
                     size_t& others, bool& failed) {
  auto& plans = st.plans;
  CapacityPlanSpec spec;
  spec.scenario = a.scenario;
  spec.overlays = a.overlays;
  spec.ttft = slo_or("--slo-ttft", a.slo_ttft, in.base.slo.ttft);
  spec.tpot = slo_or("--slo-tpot", a.slo_tpot, in.base.slo.tpot);
  spec.ttft_only = in.base.workload.stop == StopMode::SloTtft;
  spec.resolution = a.resolution;
  spec.start = in.base.workload.aps;
  spec.slots = jobs;
  spec.joint = !a.shard;
  spec.identity = st.identity;
  spec.runner = &runner;
  std::vector<CapacityCandidate> cands;
  std::vector<std::pair<size_t, size_t>> which;
  size_t k = 0;
  for (size_t vi = 0; vi < plans.size(); ++vi) {
    auto& vp = plans[vi];
    for (size_t i = 0; i < vp.splits.size(); ++i) {
      const auto& s = vp.splits[i];
      if (!s.feasible) continue;
      if (!in_shard(a.shard, k++)) {
        ++others;
        continue;
      }
      const double prior =
          analysis::max_read_rate_snics(vp.bandwidth, s.P, s.D, vp.dual_path) * vp.bandwidth.s * vp.bandwidth.B;
      cands.push_back({candidate_name(in, plans, vi, i), vp.folder + "/" + split_name(s), vp.policy,
                       split_overrides(a.overrides, vp, s), static_cast<int>(vi), prior});
      which.emplace_back(vi, i);
    }
  }
  study_log() << "plan: searching the capacity of " << cands.size() << " split(s) together, " << jobs
              << " probe(s) at a time (resolution " << a.resolution * 100 << "%)\n";
  const auto results = search_capacities(spec, cands);
  size_t evaluated = 0;
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
    failed |= !r.ok;
    evaluated += r.reused < r.probes;
  }
  if (a.ideal && !a.shard) find_ideal(spec, a.overrides, plans);
  return evaluated;
}

// One run per candidate split, --jobs at a time, each published from its staging folder when it succeeds. Returns
// the candidates this process ran and counts in `others` those left to other shards.
size_t jct_plan(const PlanStudySpec& a, const PlanInputs& in, PlanSetup& st, ProbeRunner& runner, unsigned jobs,
                size_t& others, bool& failed) {
  auto& plans = st.plans;
  std::vector<ProbeTask> tasks;
  std::vector<std::pair<size_t, size_t>> which;  // (variant, split) of each run
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
      if (!in_shard(a.shard, k)) {
        ++others;
        continue;
      }
      fs::create_directories(vp.folder);
      const std::string staging = staging_folder(dir);  // per process, so that concurrent shards never share one
      fs::create_directories(staging);
      tasks.push_back({a.scenario, a.overlays, split_overrides(a.overrides, vp, s), staging, vp.policy, "plan.log"});
      which.emplace_back(vi, i);
    }
  }
  if (tasks.empty()) return 0;
  study_log() << "plan: evaluating " << tasks.size() << " candidate(s) by JCT\n";
  // Progress: each candidate as it ends, with an estimate of the time left (the mean time per finished candidate
  // times those not finished, over the parallel slots).
  const auto started = std::chrono::steady_clock::now();
  size_t finished = 0;
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  std::vector<std::chrono::steady_clock::time_point> start_of(tasks.size());
  const auto on_start = [&](size_t k) {
    start_of[k] = std::chrono::steady_clock::now();
    const auto [vi, i] = which[k];
    study_log() << "plan: " << candidate_name(in, plans, vi, i) << " (" << k + 1 << " of " << tasks.size()
                << ") started; its log: " << tasks[k].out << "/" << tasks[k].log_name << "\n";
  };
  runner.run(tasks, jobs, [&](size_t k, const ProbeEnd& end) {
    const auto [vi, i] = which[k];
    auto& vp = plans[vi];
    const std::string dir = vp.folder + "/" + split_name(vp.splits[i]);
    vp.outcomes[i] = end.ok && publish_folder(tasks[k].out, dir) ? read_outcome(dir) : Outcome{};
    ++finished;
    const size_t left_n = tasks.size() - finished;
    const double left = since(started) / static_cast<double>(finished) * static_cast<double>(left_n) /
                        std::min<double>(jobs, static_cast<double>(std::max<size_t>(1, left_n)));
    std::ostringstream eta;
    eta << std::fixed << std::setprecision(0) << since(start_of[k]) << " s; " << finished << " of " << tasks.size()
        << " done" << (left_n > 0 ? ", about " + std::to_string(std::lround(left)) + " s left" : "");
    if (!vp.outcomes[i].ok) {
      failed = true;
      study_log() << "plan: " << candidate_name(in, plans, vi, i) << " failed ("
                  << (end.ok ? std::string("publish") : end.error) << ")\n";
    } else {
      study_log() << "plan: " << candidate_name(in, plans, vi, i) << ": JCT " << vp.outcomes[i].value << " s ("
                  << eta.str() << ")\n";
    }
  }, on_start);
  return tasks.size();
}

}  // namespace

PlanEnd run_plan_study(const PlanStudySpec& a, const PlanInputs& in, PlanSetup& st, ProbeRunner& runner) {
  PlanEnd end;
  claim_output_folder(a.out, "plan.json", st.identity, "a plan");
  const unsigned jobs = a.jobs ? a.jobs : std::max(1u, runner.slots());
  if (a.target_aps) {
    TargetPlanSpec t;
    t.scenario = a.scenario, t.out = a.out, t.overlays = a.overlays, t.overrides = a.overrides;
    t.target_aps = *a.target_aps, t.max_nodes = a.max_nodes;
    t.ttft = slo_or("--slo-ttft", a.slo_ttft, in.base.slo.ttft);
    t.tpot = slo_or("--slo-tpot", a.slo_tpot, in.base.slo.tpot);
    t.ttft_only = in.base.workload.stop == StopMode::SloTtft;
    t.slots = jobs;
    t.varied = !in.axes.empty();
    t.ties = a.ties, t.bounds = a.bounds;
    t.prices = in.prices;
    t.identity = st.identity;
    t.runner = &runner;
    end.failed = !run_target_plan(t, st.plans, st.scenarios);
    end.has_best = false;  // the inverse question draws no plan.png
    return end;
  }
  size_t others = 0;
  const size_t evaluated = in.objective == PlanObjective::Capacity
                               ? capacity_plan(a, in, st, runner, jobs, others, end.failed)
                               : jct_plan(a, in, st, runner, jobs, others, end.failed);
  if (a.shard) {  // the merge (the same study without a shard) writes plan.json and the plot
    study_out() << "plan: shard " << a.shard->text() << ": " << evaluated << " candidate(s) evaluated, " << others
                << " left to other shards" << (end.failed ? ", some failed" : "")
                << "; merge with the same command without --shard\n";
    end.shard_only = true;
    return end;
  }
  bool policy_varied = false;
  for (const auto& ax : in.axes) policy_varied |= ax.key == "policy.name";
  std::ostringstream title;
  title << "plan for " << (a.budget ? std::to_string(*a.budget) + " GPUs" : std::to_string(*a.nodes) + " nodes")
        << " of " << in.base.name << ", policy " << (policy_varied ? "per variant" : st.policy) << ", objective "
        << name_of(in.objective);
  const std::string plan_path = a.out + "/plan.json";
  const nlohmann::json out = report_plan(
      {in.objective, title.str(), !in.axes.empty(), a.resolution, st.identity, a.budget, in.prices}, st.plans,
      end.has_best);
  write_json_atomically(plan_path, out);  // whole or absent, whatever kills the process
  study_out() << "results in " << plan_path << "\n";
  return end;
}

}  // namespace dualpath::study
