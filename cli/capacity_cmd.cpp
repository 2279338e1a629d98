// dualpath capacity SCENARIO [--policy a,b] [--slo-ttft 4s] [--slo-tpot 50ms] [--resolution 0.02] [--jobs N]
//                   [--overlay F]... [--set k=v]... [--no-plot] --out DIR
//                   [--shard I/N | --slurm N [--slurm-opt OPTS] [--submit]]   (both need --jobs)
// The highest agent arrival rate (APS) an online scenario serves within the SLO, per policy
// (the study layer's core/study/capacity_study.hpp). Every probe is a `dualpath run` child process with the paper's
// stop rule (workload.stop = slo): it meets the SLO when the rule did not end it for TTFT and its mean TPOT is within
// the TPOT limit. Prints each policy's capacity, its ratio to the first policy's and the binding resource at
// capacity; writes DIR/capacity.json and DIR/capacity.png (analysis/plot_capacity.py: TTFT and TPOT against APS,
// SLO lines). --shard I/N runs its slice of each probe
// set first, then what is still missing, and writes no result; the same command without --shard then finds every
// probe done and writes them (docs/slurm.md). Exit 0, 1 when a probe failed to run, 2 on bad input.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/band.hpp"
#include "cli/child_probes.hpp"
#include "cli/commands.hpp"
#include "cli/name_list.hpp"
#include "cli/plot_script.hpp"
#include "cli/scenario_options.hpp"
#include "cli/shard.hpp"
#include "cli/slurm_jobs.hpp"
#include "core/analysis/capacity_search.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/study/capacity_study.hpp"
#include "core/study/output_folder.hpp"

namespace dualpath::cli {
namespace {

namespace fs = std::filesystem;

struct CapacityArgs {
  std::string scenario, out;
  std::string policies = "basic,dualpath";
  std::string slo_ttft = "4 s", slo_tpot = "50 ms";
  double resolution = 0.02;
  std::vector<std::string> overrides, overlays;
  unsigned jobs = 0;
  bool no_plot = false;
  std::string shard;  // "I/N": run this slice of each probe set first (cli/shard.hpp)
  SlurmArgs slurm;
  std::string band;   // --band: calibrations, one search each (cli/band.hpp)
  std::string max_probe_duration;  // the longest arrivals a transient lengthens probes to ("": 4 x the scenario's)
};

// --band: the search once per calibration (OUT/<calibration>/capacity.json), then each policy's capacity as a
// range with the calibration at each end and what binds there; OUT/band.json holds them.
void capacity_band(const CapacityArgs& a, const Scenario& sc) {
  if (!a.shard.empty() || a.slurm.shards > 0)
    throw InputError("--band", "runs one search per calibration; shard a single-calibration search instead");
  const auto members = run_band("capacity", a.band, a.out);
  std::map<std::string, std::vector<std::pair<std::string, double>>> aps, ratio;
  std::map<std::string, nlohmann::json> binds;
  std::vector<std::string> order;
  for (const auto& m : members) {
    std::ifstream in(m.out + "/capacity.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& [policy, pj] : j.at("policies").items()) {
      if (!aps.count(policy)) order.push_back(policy);
      aps[policy].emplace_back(m.name, pj.at("capacity_aps").get<double>());
      for (const auto& [k, v] : pj.items())
        if (k.rfind("ratio_to_", 0) == 0 && v.is_number()) ratio[policy].emplace_back(m.name, v.get<double>());
      binds[policy][m.name] = pj.value("binds_at_capacity", std::string("-"));
    }
  }
  std::cout << "capacity band of " << sc.name << " over " << members.size() << " calibrations (searches in " << a.out
            << "/<calibration>/):\n";
  for (const auto& m : members) std::cout << "  " << m.name << ": " << m.label << "\n";
  nlohmann::json figures = {{"policies", nlohmann::json::object()}};
  for (const auto& p : order) {
    const BandRange r = band_range(aps[p]);
    nlohmann::json pj = {{"capacity_aps", r.to_json()}, {"binds_at_capacity", binds[p]}};
    std::cout << "  " << p << ": " << range_text(r, 3, " APS") << "; binds";
    for (const auto& m : members) std::cout << " " << m.name << " " << binds[p].value(m.name, std::string("-")) << ";";
    if (ratio.count(p) && p != order.front()) {
      const BandRange q = band_range(ratio[p]);
      pj["ratio_to_" + order.front()] = q.to_json();
      std::cout << " ratio to " << order.front() << " " << range_text(q, 2, "x");
    }
    std::cout << "\n";
    figures["policies"][p] = pj;
  }
  write_band_json(a.out, members, figures);
  std::cout << "band: " << a.out << "/band.json\n";
}

void capacity(const CapacityArgs& a) {
  study::CapacityStudySpec spec;
  spec.scenario = a.scenario;
  spec.out = a.out;
  spec.overlays = a.overlays;
  spec.overrides = a.overrides;
  spec.ttft = positive_duration("--slo-ttft", a.slo_ttft);
  spec.tpot = positive_duration("--slo-tpot", a.slo_tpot);
  spec.resolution = a.resolution;
  spec.max_probe_duration =
      a.max_probe_duration.empty() ? 0 : positive_duration("--max-probe-duration", a.max_probe_duration);
  spec.policies = name_list(a.policies, "--policy");
  spec.jobs = a.jobs;
  spec.shard = parse_shard(a.shard);
  if (!a.band.empty()) {
    study::check_resolution(spec.resolution);
    return capacity_band(a, load_scenario(a.scenario, a.overrides, a.overlays));
  }
  if ((spec.shard || a.slurm.shards > 0) && a.jobs == 0)
    throw InputError("--jobs", "a sharded capacity search needs --jobs: it sets how many APS values each step probes, "
                               "which every shard and the merge must share (the default, the core count, may differ)");
  if (a.slurm.shards > 0) {
    if (spec.shard) throw InputError("--shard", "--slurm writes the shards' job script itself; give one or the other");
    study::check_capacity_study(spec);
    study::claim_output_folder(a.out, "capacity.json", study::capacity_identity(spec), "a capacity search");
    submit_slurm_jobs("capacity", a.out, a.slurm);
    return;
  }
  ChildProbeRunner runner;
  const study::CapacityStudy st = study::run_capacity_study(spec, runner, &std::cerr);
  if (st.probe_failed) throw CLI::RuntimeError(kExitFailure);
  st.print(std::cout);
  if (st.shard_only) return;  // the merge (the same command without --shard) writes capacity.json and the plot
  const std::string meta_path = a.out + "/capacity.json";
  std::cout << "results in " << meta_path << "\n";
  const std::string png = a.out + "/capacity.png";
  if (!a.no_plot) run_plot_script("capacity", "plot_capacity.py", {meta_path, png}, png);
  st.check_decided();
}

}  // namespace

void register_capacity_command(CLI::App& app) {
  auto args = std::make_shared<CapacityArgs>();
  CLI::App* cmd = app.add_subcommand(
      "capacity", "Highest agent arrival rate (APS) an online scenario serves within the SLO, per policy");
  cmd->add_option("scenario", args->scenario, "Online scenario JSON file")->required();
  cmd->add_option("--policy", args->policies, "Comma-separated policies (default basic,dualpath)");
  cmd->add_option("--slo-ttft", args->slo_ttft, "TTFT limit (default 4 s)");
  cmd->add_option("--slo-tpot", args->slo_tpot, "TPOT limit (default 50 ms)");
  cmd->add_option("--resolution", args->resolution, "Relative width of the final bracket (default 0.02)");
  add_scenario_options(cmd, args->overrides, args->overlays, "Override a field for every probe: path=value");
  cmd->add_option("--out", args->out, "Output folder (capacity.json, probes/)")->required();
  cmd->add_flag("--no-plot", args->no_plot, "Do not draw capacity.png");
  cmd->add_option("--jobs", args->jobs, "Probes run at once (default: the core count)")->check(CLI::Range(1u, 1024u));
  add_shard_options(cmd, args->shard, args->slurm);
  cmd->add_option("--max-probe-duration", args->max_probe_duration,
                  "When a search's failing end is a transient, its probes are run again with twice the arrivals, up to "
                  "this (default 4 x the scenario's workload.duration); a capacity still undecided exits 2");
  cmd->add_option("--band", args->band,
                  "Search once per calibration (comma-separated, e.g. ideal,paper-cluster) into <out>/<calibration>/ "
                  "and print each capacity as a range with the calibration at each end (docs/calibration.md)");
  cmd->callback([args] { capacity(*args); });
}

}  // namespace dualpath::cli
