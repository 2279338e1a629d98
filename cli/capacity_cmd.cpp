// dualpath capacity SCENARIO [--policy a,b] [--slo-ttft 4s] [--slo-tpot 50ms] [--resolution 0.02] [--jobs N]
//                   [--overlay F]... [--set k=v]... [--no-plot] --out DIR
//                   [--shard I/N | --slurm N [--slurm-opt OPTS] [--submit]]   (both need --jobs)
// The highest agent arrival rate (APS) an online scenario serves within the SLO, per policy
// (core/analysis/capacity_search.hpp). Every probe is a `dualpath run` child process with the paper's stop rule
// (workload.stop = slo): it meets the SLO when the rule did not end it for TTFT and its mean TPOT is within the
// TPOT limit. Probes go to DIR/probes/<policy>/aps=<A>/ and are reused when DIR/capacity.json's identity (scenario,
// overlays, --set list, SLO) matches, so a rerun, or one with a finer --resolution, only runs what is new.
// Prints each policy's capacity, its ratio to the first policy's and the binding resource at capacity; writes
// DIR/capacity.json and DIR/capacity.png (analysis/plot_capacity.py: TTFT and TPOT against APS, SLO lines).
// A probe runs in a staging folder renamed onto its own when it succeeds. --shard I/N runs its slice of each probe
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
#include "cli/capacity_probe.hpp"
#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/output_folder.hpp"
#include "cli/plot_script.hpp"
#include "cli/scenario_options.hpp"
#include "cli/shard.hpp"
#include "cli/slurm_jobs.hpp"
#include "cli/name_list.hpp"
#include "core/analysis/capacity_search.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/config/units.hpp"
#include "core/metrics/summary.hpp"
#include "core/run/summary_sections.hpp"
#include "core/sched/policy_registry.hpp"

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

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

void capacity(const CapacityArgs& a) {
  const double ttft = positive_duration("--slo-ttft", a.slo_ttft);
  const double tpot = positive_duration("--slo-tpot", a.slo_tpot);
  const double max_probe =
      a.max_probe_duration.empty() ? 0 : positive_duration("--max-probe-duration", a.max_probe_duration);
  if (!(a.resolution >= analysis::kMinResolution && a.resolution < 1))
    throw InputError("--resolution", "expected a fraction in [" + analysis::load_text(analysis::kMinResolution) +
                                         ", 1), e.g. 0.02, found " + analysis::load_text(a.resolution));
  const Scenario sc = load_scenario(a.scenario, a.overrides, a.overlays);
  if (!a.band.empty()) return capacity_band(a, sc);
  std::vector<std::string> policies;
  {
    for (const std::string& p : name_list(a.policies, "--policy")) {
      PolicySpec spec = sc.policy;
      spec.name = p;
      try {
        effective_features(spec);  // unknown names throw, naming the known ones
      } catch (const InputError& e) {
        const std::string what = e.what();
        throw InputError("--policy " + a.policies, what.substr(what.find(": ") + 2));
      }
      policies.push_back(p);
    }
    if (policies.empty()) throw InputError("--policy", "expected one or more policy names, e.g. basic,dualpath");
  }
  if (sc.workload.mode != ArrivalMode::Online)
    throw InputError(a.scenario + ": /workload/mode",
                     "capacity searches the arrival rate of an online scenario; this one is offline "
                     "(use --set workload.mode=online --set workload.aps=A --set workload.duration=T)");
  check_probe_length(sc, a.scenario);
  check_runnable(sc, a.scenario);  // a --set every probe would refuse: exit 2 now, not a failed probe

  nlohmann::json meta = {{"scenario", fs::absolute(a.scenario).lexically_normal().string()},
                         {"overlays", a.overlays},
                         {"set", a.overrides},
                         {"slo", {{"ttft_s", ttft}, {"tpot_s", tpot}}}};
  if (max_probe > 0) meta["max_probe_duration_s"] = max_probe;
  const std::optional<Shard> shard = parse_shard(a.shard);
  if ((shard || a.slurm.shards > 0) && a.jobs == 0)
    throw InputError("--jobs", "a sharded capacity search needs --jobs: it sets how many APS values each step probes, "
                               "which every shard and the merge must share (the default, the core count, may differ)");
  if (a.slurm.shards > 0) {
    if (shard) throw InputError("--shard", "--slurm writes the shards' job script itself; give one or the other");
    claim_output_folder(a.out, "capacity.json", meta, "a capacity search");
    submit_slurm_jobs("capacity", a.out, a.slurm);
    return;
  }
  claim_output_folder(a.out, "capacity.json", meta, "a capacity search");
  const double max_duration = max_probe > 0 ? max_probe : 4 * sc.workload.duration;
  const std::string meta_path = a.out + "/capacity.json";
  const unsigned jobs = a.jobs ? a.jobs : default_parallelism();
  nlohmann::json result = {{"identity", meta}, {"calibration", calibration_json(sc)}, {"resolution", a.resolution},
                           {"policies", nlohmann::json::object()}};
  bool any_failed = false;
  std::map<std::string, double> caps;
  for (const auto& policy : policies) {
    analysis::CapacitySearchSpec spec;
    spec.start = sc.workload.aps;
    spec.resolution = a.resolution;
    spec.parallel = static_cast<int>(jobs);
    // Probes whose failing end is a transient decide nothing above the last pass: the search runs again with twice
    // the arrivals (in probes/<policy>/duration=<s>/), up to --max-probe-duration, and a capacity still undecided
    // there is reported as a lower bound and exit 2, never as a rate it did not establish.
    double duration = sc.workload.duration;
    std::vector<std::string> overrides = a.overrides;
    std::string key = policy;
    bool undecided = false;
    std::optional<analysis::CapacitySearch> searched;
    std::map<double, Probe> probes;
    int reused = 0;
    for (;;) {
      analysis::CapacitySearch search(spec);
      probes.clear();
      // A probe set's APS values run in parallel. A shard runs its slice of each set first, then whatever of the set
      // is still missing (another shard may be slow, gone or not started): every shard completes the search, and
      // a probe that two shards ran is kept once. All shards and the merge must use the same --jobs, which sets
      // the size of each probe set and so the search's path.
      for (auto loads = search.next(); !loads.empty() && !any_failed; loads = search.next()) {
        for (int pass = shard ? 0 : 1; pass < 2 && !any_failed; ++pass) {
          std::vector<ChildJob> cj;
          std::vector<double> pending;
          std::vector<std::string> staging;
          for (size_t k = 0; k < loads.size(); ++k) {
            const double aps = loads[k];
            if (probes.count(aps)) continue;
            const std::string dir = probe_dir(a.out, key, aps);
            if (auto done = finished_probe(dir, aps, tpot)) {  // an earlier search with the same identity, or a shard
              probes[aps] = *done;
              ++reused;
              continue;
            }
            if (pass == 0 && !in_shard(shard, k)) continue;  // first pass: this shard's slice only
            staging.push_back(make_probe_staging(dir));
            cj.push_back(probe_job({a.scenario, a.overlays, overrides, policy, ttft, tpot,
                                          sc.workload.stop == StopMode::SloTtft},
                                         aps, staging.back()));
            pending.push_back(aps);
          }
          if (cj.empty()) continue;
          std::cerr << "capacity: " << policy << ": probing APS";
          for (double aps : pending) std::cerr << " " << aps_text(aps);
          std::cerr << "\n";
          run_child_jobs(cj, jobs, [](size_t) {}, [&](size_t k, int code) {
            const double aps = pending[k];
            const std::string dir = probe_dir(a.out, key, aps);
            if (code != 0 || !publish_folder(staging[k], dir)) {
              std::cerr << "capacity: probe " << dir << " failed (exit " << code << "): " << log_tail(cj[k].log_path, 300)
                        << "\n";
              any_failed = true;
              return;
            }
            probes[aps] = read_probe(dir, aps, tpot);
            std::cerr << "capacity: " << policy << " APS " << aps_text(aps) << ": " << verdict(probes[aps], ttft, tpot)
                      << "\n";
          });
        }
        if (any_failed) break;
        for (double aps : loads) search.record(aps, probes.at(aps).meets);
    }
    if (any_failed) break;
    searched.emplace(search);
    const auto fail = search.lowest_failing();
    const bool transient_end = fail && probes.at(*fail).transient;
    if (!transient_end || sc.workload.stop == StopMode::SloTtft || !(duration > 0)) break;  // probes judge by slo otherwise
    if (2 * duration > max_duration) {
      undecided = true;
      break;
    }
    duration *= 2;
    overrides = a.overrides;
    overrides.push_back("workload.duration=" + aps_text(duration) + " s");
    key = policy + "/duration=" + aps_text(duration);
    std::cerr << "capacity: " << policy << ": the failing end (" << aps_text(*fail) << " APS) is a transient: "
              << "searching again with " << aps_text(duration) << " s of arrivals\n";
    }
    if (any_failed) break;
    const analysis::CapacitySearch& search = *searched;
    const double cap = search.capacity();
    caps[policy] = cap;
    nlohmann::json pj = {{"capacity_aps", cap},
                         {"lowest_failing_aps", search.lowest_failing() ? nlohmann::json(*search.lowest_failing())
                                                                        : nlohmann::json()},
                         {"gave_up", search.gave_up()},
                         // The bracket's failing end was a transient (no steady state before the arrivals ended),
                         // not a measured miss: the capacity is then only as good as the probes are long.
                         {"lowest_failing_transient",
                          search.lowest_failing() && probes.at(*search.lowest_failing()).transient},
                         {"probes_reused", reused},
                         // The arrivals of the search's probes (lengthened past the scenario's while its failing end
                         // was a transient), and whether the capacity is still undecided at --max-probe-duration.
                         {"probe_duration_s", duration},
                         {"undecided", undecided},
                         {"probes", nlohmann::json::array()}};
    for (const auto& [aps, p] : probes) {
      pj["probes"].push_back(probe_json(p));
      if (aps == cap) pj["binds_at_capacity"] = p.binds;
    }
    result["policies"][policy] = pj;
  }
  if (any_failed) throw CLI::RuntimeError(kExitFailure);
  if (shard) {  // the merge (the same command without --shard) writes capacity.json and the plot
    std::cout << "capacity: shard " << shard->text() << " done:";
    for (const auto& p : policies) std::cout << " " << p << " " << aps_text(caps[p]) << " APS";
    std::cout << "; merge with the same command without --shard\n";
    return;
  }
  const double base = caps[policies.front()];
  for (const auto& p : policies)
    result["policies"][p]["ratio_to_" + policies.front()] = base > 0 ? nlohmann::json(caps[p] / base) : nlohmann::json();
  write_json_atomically(meta_path, result);

  std::cout << "calibration " << sc.calibration.name << ": " << sc.calibration.label << "\n";
  std::cout << "capacity of " << sc.name << " within TTFT <= " << aps_text(ttft) << " s, TPOT <= "
            << aps_text(tpot * 1e3) << " ms (resolution " << a.resolution * 100 << "%):\n";
  int w = 12;  // the policy column: as wide as the longest name and a space
  for (const auto& p : policies) w = std::max(w, static_cast<int>(p.size()) + 1);
  std::cout << std::left << std::setw(w) << "policy" << std::right << std::setw(12) << "APS" << std::setw(10)
            << "ratio" << std::setw(10) << "probes" << "   binds at capacity\n";
  for (const auto& p : policies) {
    const auto& pj = result["policies"][p];
    const bool undecided = pj["undecided"].get<bool>();
    // An undecided capacity prints what the probes established: at least the last pass ("undecided" when none).
    const std::string aps = !undecided ? aps_text(caps[p]) : caps[p] > 0 ? ">= " + aps_text(caps[p]) : "undecided";
    std::cout << std::left << std::setw(w) << p << std::right << std::setw(12) << aps << std::setw(10)
              << (base > 0 && !undecided ? ratio_text(caps[p] / base) : std::string("-")) << std::setw(10)
              << pj["probes"].size() << "   " << pj.value("binds_at_capacity", std::string("-"));
    if (undecided)
      std::cout << "  (every probe above was a transient at " << aps_text(pj["probe_duration_s"].get<double>())
                << " s of arrivals: see below)";
    else
      std::cout << (pj["gave_up"].get<bool>() ? "  (search gave up: see capacity.json)" : "")
                << (pj["lowest_failing_transient"].get<bool>()
                        ? "  (its failing end is a transient, not a miss: longer probes may hold more; "
                          "raise workload.duration)"
                        : "");
    std::cout << "\n";
  }
  std::cout << "results in " << meta_path << "\n";
  const std::string png = a.out + "/capacity.png";
  if (!a.no_plot) run_plot_script("capacity", "plot_capacity.py", {meta_path, png}, png);
  // A capacity the probes could not decide is not an answer (issue 80: it used to print 0 or the last pass).
  for (const auto& p : policies)
    if (result["policies"][p]["undecided"].get<bool>())
      throw InputError("workload.duration",
                       p + "'s capacity is undecided: every probe above " + aps_text(caps[p]) + " APS was a transient at " +
                           aps_text(result["policies"][p]["probe_duration_s"].get<double>()) +
                           " s of arrivals (the longest --max-probe-duration allows, " + aps_text(max_duration) +
                           " s); it needs longer probes: raise --max-probe-duration or workload.duration");
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
