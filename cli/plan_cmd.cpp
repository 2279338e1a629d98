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
//     (core/study/plan_capacity.hpp: a lead split first, the others seeded from it, splits that cannot be the best
//     dropped with an upper bound), rounds of --jobs probes, resumable probe by probe.
// Explains the choice with the binding resource and the §4.2 bottleneck-free P/D range, and calls a tie a tie
// (core/study/plan_report.hpp). The study is core/study/plan_study.hpp; this file is its options, the band, Slurm
// and the plot. Candidates already evaluated in DIR (same identity) are reused. --shard I/N evaluates
// only candidates with index % N == I (in the fixed order of variants and splits; a capacity shard searches each of
// its splits on its own, to the resolution) and writes no plan; --slurm N writes a Slurm array of N shards and a
// merge job (docs/slurm.md). Writes DIR/plan.json and DIR/plan.png (analysis/plot_plan.py). Exit 0, 1 when a
// candidate failed, 2 on bad input.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/child_probes.hpp"
#include "cli/commands.hpp"
#include "cli/plan_band.hpp"
#include "cli/plot_script.hpp"
#include "cli/scenario_options.hpp"
#include "cli/shard.hpp"
#include "cli/slurm_jobs.hpp"
#include "core/config/choices.hpp"
#include "core/config/input_error.hpp"
#include "core/study/output_folder.hpp"
#include "core/study/plan_study.hpp"

namespace dualpath::cli {
namespace {

struct PlanArgs {
  study::PlanStudySpec spec;
  std::string band;   // --band: calibrations, one plan each (cli/band.hpp)
  std::string shard;  // "I/N": evaluate only this slice of the candidates (cli/shard.hpp)
  SlurmArgs slurm;
  bool no_plot = false;
  std::string bounds = "on";  // --bounds
};

void plan(PlanArgs a) {
  a.spec.shard = parse_shard(a.shard);
  const study::PlanInputs in = study::read_plan_inputs(a.spec);
  if (!a.band.empty()) {
    if (a.spec.shard || a.slurm.shards > 0)
      throw InputError("--band", "runs one plan per calibration; shard a single-calibration plan instead");
    return plan_band(a.band, a.spec.out, a.spec.target_aps, in.objective == study::PlanObjective::Capacity, in.base);
  }
  study::PlanSetup setup = study::setup_plan(a.spec, in);
  if (a.slurm.shards > 0) {
    if (a.spec.target_aps)
      throw InputError("--target-aps", "the inverse question runs in one process (each node count decides the "
                                       "next); give no --shard or --slurm");
    if (a.spec.shard) throw InputError("--shard", "--slurm writes the shards' job script itself; give one or the other");
    study::claim_output_folder(a.spec.out, "plan.json", setup.identity, "a plan");
    submit_slurm_jobs("plan", a.spec.out, a.slurm);
    return;
  }
  ChildProbeRunner runner;
  const study::PlanEnd end = study::run_plan_study(a.spec, in, setup, runner);
  const std::string plan_path = a.spec.out + "/plan.json", png = a.spec.out + "/plan.png";
  if (!end.shard_only && !a.spec.target_aps && !a.no_plot && end.has_best)
    run_plot_script("plan", "plot_plan.py", {plan_path, png}, png);
  if (end.failed) throw CLI::RuntimeError(kExitFailure);
}

}  // namespace

void register_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "Evaluate every P/D split of N nodes and recommend the best");
  cmd->add_option("scenario", args->spec.scenario, "Scenario JSON file (offline for jct, online for capacity)")->required();
  auto* nodes = cmd->add_option("--nodes", args->spec.nodes, "Nodes to split into P prefill + D decode (>= 2)");
  auto* target = cmd->add_option("--target-aps", args->spec.target_aps,
                                 "The inverse question: the fewest nodes (and their splits) holding this many agents "
                                 "per second within the SLO (--objective capacity)")
                     ->excludes(nodes);
  cmd->add_option("--max-nodes", args->spec.max_nodes, "With --target-aps: the largest cluster searched (default 64)")
      ->needs(target);
  cmd->add_flag("--ties", args->spec.ties,
                "With --target-aps: decide every split of the answer, to name all that hold (default: only when the "
                "rest fit in one more round of --jobs)")
      ->needs(target);
  cmd->add_option("--bounds", args->bounds,
                  "With --target-aps: on (default) rules out unprobed the splits a bound shows cannot hold the load; "
                  "off probes every split")
      ->check(CLI::IsMember({"on", "off"}))
      ->needs(target);
  cmd->add_option("--budget", args->spec.budget,
                  "GPU budget instead of --nodes: as many whole nodes as it makes (per variant's GPUs per node)")
      ->excludes(nodes)
      ->excludes(target);
  cmd->add_option("--objective", args->spec.objective, "jct (offline, lowest JCT) | capacity (online, highest APS)")
      ->check(CLI::IsMember(choice_names(study::kPlanObjectives)));
  cmd->add_option("--policy", args->spec.policy, "Policy (default: the scenario's)");
  cmd->add_option("--vary", args->spec.vary,
                  "KEY=V1,V2,...: also try each value of a --set path (repeatable; every combination is evaluated)");
  auto* resolution =
      cmd->add_option("--resolution", args->spec.resolution, "Capacity objective: the searches' resolution (default 0.02)");
  cmd->add_option("--slo-ttft", args->spec.slo_ttft, "Capacity objective: TTFT limit, e.g. \"4 s\" (default: the scenario's slo.ttft)");
  cmd->add_option("--slo-tpot", args->spec.slo_tpot, "Capacity objective: TPOT limit, e.g. \"50 ms\" (default: the scenario's slo.tpot)");
  add_scenario_options(cmd, args->spec.overrides, args->spec.overlays, "Override a field for every split: path=value");
  cmd->add_option("--out", args->spec.out, "Output folder (plan.json, plan.png, splits/)")->required();
  cmd->add_option("--jobs", args->spec.jobs, "Runs at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--no-plot", args->no_plot, "Do not draw plan.png");
  // A price option given empty is refused, not read as "no price" (the plan would come back unpriced).
  const auto non_empty_price = [](const std::string& v) {
    return v.empty() ? std::string("expected a price or TOPOLOGY=PRICE,..., found an empty one") : std::string();
  };
  auto* node_cost = cmd->add_option("--node-hour-cost", args->spec.node_hour_cost,
                                    "Dollars per node-hour: the answer's cost per agent and per million tokens; one "
                                    "price, or each topology's: hopper-8gpu-80g=98.32,h20-8gpu-96g=40")
                         ->check(non_empty_price);
  cmd->add_option("--gpu-hour-cost", args->spec.gpu_hour_cost,
                  "Dollars per GPU-hour instead (times the node's GPUs); one price or TOPOLOGY=PRICE,...")
      ->excludes(node_cost)
      ->check(non_empty_price);
  cmd->add_flag("--ideal", args->spec.ideal,
                "Capacity plans: beside each variant's best split, the Oracle's capacity on it (free KV loads; one more "
                "search each) and its §4.2 read bound");
  cmd->add_option("--max-candidates", args->spec.max_candidates,
                  "Refuse a plan of more candidate splits than this, before running any (default " +
                      std::to_string(study::kDefaultMaxCandidates) + ")")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  add_shard_options(cmd, args->shard, args->slurm);
  cmd->add_option("--band", args->band,
                  "Plan once per calibration (comma-separated, e.g. ideal,paper-cluster) into <out>/<calibration>/ and "
                  "print the answer as a range with the calibration at each end (docs/calibration.md)");
  cmd->callback([args, resolution] {
    args->spec.resolution_given = resolution->count() > 0;
    args->spec.bounds = args->bounds == "on";
    plan(*args);
  });
}

}  // namespace dualpath::cli
