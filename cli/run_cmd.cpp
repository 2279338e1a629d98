// dualpath run SCENARIO [--overlay FILE]... [--set k=v]... [--out DIR] [--policy a,b,...] [--quiet]
//                       [--trace FILE [--trace-flows N] [--trace-detail N] [--trace-counters N]]
// One policy: simulates in this process (SimGrid allows one simulation per process) and prints a summary.
// Several policies: runs each in a child process of this program (in parallel up to the core count), on the same
// workload, then prints them side by side with speed-ups over the first policy. With --trace, each child writes
// its own trace, FILE with the policy name inserted before the extension (t.json -> t.dualpath.json).
// A progress line is shown on stderr while a single run simulates, when stderr is a terminal and not --quiet.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "cli/band.hpp"
#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/number_format.hpp"
#include "cli/scenario_options.hpp"
#include "cli/name_list.hpp"
#include "core/config/fault_kinds.hpp"
#include "core/config/output_file.hpp"
#include "core/config/input_error.hpp"
#include "core/config/faults.hpp"
#include "core/config/loader.hpp"
#include "core/backend/run_errors.hpp"
#include "core/metrics/summary.hpp"
#include "core/metrics/trace_events.hpp"
#include "core/run/summary_sections.hpp"
#include "core/sched/policy_registry.hpp"
#ifdef DUALPATH_HAVE_SIM
#include "sim/run_scenario.hpp"
#endif

namespace dualpath::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> overrides;
  std::vector<std::string> overlays;
  std::string out;
  std::string policies;
  bool quiet = false;
  std::string trace;
  TraceOptions trace_options;
  std::vector<std::string> faults;
  bool baseline = false;
  unsigned threads = 1;  // --threads: the native engine's link meter on a worker thread from 2 (sim/meter_feed.hpp)
  std::string fault_baseline;  // set by --baseline for its children: the run folder without faults to compare with
  std::string band;            // --band: calibrations, one run each (cli/band.hpp)
};

// The run folder of `policy`: the results folder itself for one policy, <out>/<policy> for several.
std::string run_folder_of(const std::vector<std::string>& policies, const std::string& out,
                          const std::string& policy) {
  return policies.size() > 1 ? out + "/" + policy : out;
}

// The resource that took the largest share of TTFT (summary.json "waits"), e.g. "snic 54%".
std::string binds(const RunFile& f) {
  if (!f.has_waits) return "-";
  if (f.ttft_binds == "none") return f.ttft_binds;
  return f.ttft_binds + " " + fixed(100 * f.ttft_binds_share, 0) + "%";
}

void print_table(const std::vector<std::pair<std::string, nlohmann::json>>& summaries) {
  std::vector<std::pair<std::string, RunFile>> runs;
  for (const auto& [name, s] : summaries) runs.emplace_back(name, run_file_from_json(s));
  const double base_jct = runs.front().second.results.jct;
  // Which cluster the figures describe (docs/calibration.md): every table names its calibration.
  if (const auto c = summaries.front().second.find("calibration"); c != summaries.front().second.end() && c->is_object())
    std::cout << "calibration " << c->value("name", std::string("?")) << ": " << c->value("label", std::string()) << "\n";
  // A speed-up compares the policies' JCTs over the same agents, all started at t = 0: not for one policy, and not
  // online, where the arrivals set the end and JCT says little.
  const auto& cfg = summaries.front().second;
  const bool online = cfg.contains("config") && cfg["config"].value("workload", nlohmann::json::object())
                                                        .value("mode", std::string()) == "online";
  const bool speedup = runs.size() > 1 && !online;
  int w = 10;  // the policy column: as wide as the longest name (dualpath-split) and a space
  for (const auto& run : runs) w = std::max(w, static_cast<int>(run.first.size()) + 1);
  std::cout << std::left << std::setw(w) << "policy" << std::right << std::setw(11) << "JCT (s)";
  if (speedup) std::cout << std::setw(9) << "speedup";
  std::cout << std::setw(11) << "TTFT p50" << std::setw(11) << "TTFT p99" << std::setw(11)
            << "TPOT p50" << std::setw(12) << "prompt t/s" << std::setw(9) << "PE SNIC" << std::setw(9) << "DE SNIC"
            << "  binds (TTFT share)\n";
  for (const auto& [name, f] : runs) {
    const RunSummary& r = f.results;
    const double jct = r.jct;
    std::cout << std::left << std::setw(w) << name << std::right << std::setw(11) << fixed(jct, 1);
    if (speedup) std::cout << std::setw(9) << (jct > 0 ? fixed(base_jct / jct) + "x" : "-");
    std::cout << std::setw(11) << fixed(r.ttft.p50, 2) + " s" << std::setw(11)
              << fixed(r.ttft.p99, 2) + " s" << std::setw(11) << fixed(r.tpot.p50 * 1e3, 1) + " ms" << std::setw(12)
              << fixed(r.prompt_tokens_per_s, 0) << std::setw(8) << fixed(100 * f.links.pe_snic_read, 0) << "%"
              << std::setw(8) << fixed(100 * f.links.de_snic_read, 0) << "%  " << binds(f) << "\n";
  }
  // The hit rate each policy achieved against the zero-service-time reference of the same agents.
  std::cout << "KV hit rate:";
  for (const auto& [name, f] : runs) std::cout << " " << name << " " << fixed(100 * f.kv_hit_rate, 2) << "%";
  const RunFile& first = runs.front().second;
  std::cout << "; zero-service reference " << fixed(100 * first.kv_hit_rate_zero_service, 2) << "%";
  if (first.shared_hit_rate_zero_service > 0)
    std::cout << " (" << fixed(100 * first.shared_hit_rate_zero_service, 2) << "% from shared prefixes)";
  std::cout << "\n";
  // Online runs: the mean trajectory completion time and the §8.2 working set it implies (what the paper's figures
  // are: 69 GB at 0.1 APS and 681 GB at 0.45 APS for DS 660B 2P4D; docs/fidelity.md).
  for (const auto& [name, f] : runs) {
    if (!f.working_set || f.working_set->agents == 0) continue;
    const WorkingSetFigures& ws = *f.working_set;
    std::cout << "Trajectories (" << name << "): mean completion time T " << fixed(ws.mean_lifetime_s, 0) << " s over "
              << ws.agents << " agents at " << fixed(ws.agents_per_s, 3) << " APS; working set lambda*T*L/2 "
              << fixed(ws.law_bytes / 1e9, 1) << " GB at " << fixed(ws.kv_bytes_per_token, 0) << " B/token (L "
              << fixed(ws.mean_final_tokens, 0) << " tokens; measured mean " << fixed(ws.measured_mean_bytes / 1e9, 1)
              << " GB)\n";
  }
  // Policies with a DRAM pool: where their hit KV came from, and how full the pool ran.
  for (const auto& [name, f] : runs) {
    if (!f.pool) continue;
    const PoolFigures& p = *f.pool;
    const double cap = p.capacity_bytes, per_node = cap / p.nodes;
    std::cout << "DRAM pool (" << name << ", " << fixed(per_node / 1e9, 0) << " GB/node): "
              << fixed(100 * p.pool_hit_share, 1) << "% of hit KV from the pool, "
              << fixed(100 - 100 * p.pool_hit_share, 1) << "% from storage; occupancy mean "
              << fixed(cap > 0 ? 100 * p.occupancy_mean_bytes / cap : 0, 0) << "%, peak node "
              << fixed(per_node > 0 ? 100 * p.occupancy_peak_node_bytes / per_node : 0, 0) << "%; "
              << fixed(p.evicted_bytes / 1e9, 1) << " GB evicted";
    if (f.working_set && f.working_set->law_bytes > 0)  // online: the pool against the working set it caches
      std::cout << "; capacity " << fixed(cap / f.working_set->law_bytes, 2) << " x the working set lambda*T*L/2 = "
                << fixed(f.working_set->law_bytes / 1e9, 1) << " GB";
    std::cout << "\n";
  }
}

// One `dualpath run` child of this run's scenario, overlays and overrides, for `policy`, into `folder`.
ChildJob child_run(const RunArgs& a, const std::string& policy, const std::string& folder) {
  ChildJob job;
  job.args = {"run", a.scenario, "--quiet", "--out", folder};
  for (const auto& f : a.overlays) job.args.insert(job.args.end(), {"--overlay", f});
  for (const auto& o : a.overrides) job.args.insert(job.args.end(), {"--set", o});
  job.args.insert(job.args.end(), {"--set", "policy.name=" + policy});
  if (a.threads != 1) job.args.insert(job.args.end(), {"--threads", std::to_string(a.threads)});
  return job;
}

// The `dualpath run` child jobs of a side-by-side comparison, one per policy, on the same scenario and workload.
std::vector<ChildJob> policy_jobs(const RunArgs& a, const std::vector<std::string>& policies, const std::string& out) {
  std::vector<ChildJob> jobs;
  for (const auto& policy : policies) {
    ChildJob job = child_run(a, policy, out + "/" + policy);
    if (a.baseline) job.args.insert(job.args.end(), {"--fault-baseline", out + "/" + policy + "/baseline"});
    if (!a.trace.empty())
      job.args.insert(job.args.end(), {"--trace", trace_file_for_policy(a.trace, policy), "--trace-flows",
                                       std::to_string(a.trace_options.flow_requests), "--trace-detail",
                                       std::to_string(a.trace_options.detail_limit), "--trace-counters",
                                       std::to_string(a.trace_options.counter_limit)});
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// --baseline: each policy's run is first simulated without its faults (in <its folder>/baseline/); the run with
// faults then reads that summary back and its summary.json gains "fault_impact" (core/run/fault_impact.hpp).
// The baselines run as children of this program (one simulation per process), in parallel up to the core count.
void run_fault_baselines(const RunArgs& a, const std::vector<std::string>& policies, const std::string& out) {
  std::vector<ChildJob> jobs;
  for (const auto& policy : policies) {
    ChildJob job = child_run(a, policy, run_folder_of(policies, out, policy) + "/baseline");
    job.args.insert(job.args.end(), {"--set", "faults=[]"});
    jobs.push_back(std::move(job));
  }
  const auto codes = run_child_jobs(jobs, default_parallelism(), nullptr, nullptr);
  for (size_t i = 0; i < policies.size(); ++i)
    if (codes[i] != 0)
      throw CLI::RuntimeError("the baseline of policy " + policies[i] + " failed with exit code " +
                                  std::to_string(codes[i]),
                              kExitFailure);
}

// The "fault_impact" lines of each policy's run, read back from its summary.json.
void print_fault_impact(const std::vector<std::string>& policies, const std::string& out) {
  std::cout << "fault impact (with faults vs the same run without them, in <run>/baseline/):\n";
  for (const auto& policy : policies) {
    const std::string path = run_folder_of(policies, out, policy) + "/summary.json";
    std::ifstream in(path);
    const nlohmann::json impact = nlohmann::json::parse(in).at("fault_impact");
    auto figure = [&](const char* metric, const char* which) { return impact.at(metric).at(which).get<double>(); };
    const double change = figure("jct_s", "change");
    std::cout << "  " << std::left << std::setw(10) << policy << std::right << " JCT "
              << fixed(figure("jct_s", "with_faults"), 1) << " s vs " << fixed(figure("jct_s", "without"), 1)
              << " s (" << (change >= 0 ? "+" : "") << fixed(100 * change, 1) << "%), TTFT p50 "
              << fixed(figure("ttft_p50_s", "with_faults"), 2) << " s vs " << fixed(figure("ttft_p50_s", "without"), 2)
              << " s, SLO met " << fixed(100 * figure("slo_both_ok_fraction", "with_faults"), 1) << "% vs "
              << fixed(100 * figure("slo_both_ok_fraction", "without"), 1) << "%\n";
  }
}

void run_policies(const RunArgs& a, Scenario sc, const std::string& out, const std::vector<std::string>& policies);

// --band: the run once per calibration (OUT/<calibration>/), then each policy's figures as ranges, with the
// calibration that gives each end and what binds there; OUT/band.json holds them.
void run_band_of(const RunArgs& a, const Scenario& sc, const std::string& out, const std::vector<std::string>& policies) {
  if (a.baseline || !a.trace.empty())
    throw InputError("--band", "runs one calibration per child; give --baseline or --trace to a single-calibration run");
  const auto members = run_band("run", a.band, out);
  const std::vector<std::string> names = policies.empty() ? std::vector<std::string>{sc.policy.name} : policies;
  nlohmann::json figures = nlohmann::json::object();
  std::cout << "band of " << sc.name << " over " << members.size() << " calibrations (results in " << out
            << "/<calibration>/):\n";
  for (const auto& m : members) std::cout << "  " << m.name << ": " << m.label << "\n";
  for (const auto& policy : names) {
    std::map<std::string, std::vector<std::pair<std::string, double>>> by_metric;
    nlohmann::json binds_at = nlohmann::json::object();
    for (const auto& m : members) {
      std::ifstream in(run_folder_of(policies, m.out, policy) + "/summary.json");
      const RunFile f = run_file_from_json(nlohmann::json::parse(in));
      const RunSummary& r = f.results;
      by_metric["jct_s"].emplace_back(m.name, r.jct);
      by_metric["ttft_mean_s"].emplace_back(m.name, r.ttft.mean);
      by_metric["ttft_p50_s"].emplace_back(m.name, r.ttft.p50);
      by_metric["tpot_p50_s"].emplace_back(m.name, r.tpot.p50);
      by_metric["prompt_tokens_per_s"].emplace_back(m.name, r.prompt_tokens_per_s);
      binds_at[m.name] = binds(f);
    }
    nlohmann::json pj = {{"binds", binds_at}};
    for (const auto& [metric, values] : by_metric) pj[metric] = band_range(values).to_json();
    figures["policies"][policy] = pj;
    const auto at = [&](const char* k) { return band_range(by_metric.at(k)); };
    const BandRange tpot = at("tpot_p50_s");
    BandRange tpot_ms = tpot;
    tpot_ms.low *= 1e3, tpot_ms.high *= 1e3;
    std::cout << "  " << policy << ": JCT " << range_text(at("jct_s"), 1, " s") << "; TTFT mean "
              << range_text(at("ttft_mean_s"), 2, " s") << "; TPOT p50 " << range_text(tpot_ms, 1, " ms")
              << "; binds";
    for (const auto& m : members) std::cout << " " << m.name << " " << binds_at[m.name].get<std::string>() << ";";
    std::cout << "\n";
  }
  write_band_json(out, members, figures);
  std::cout << "band: " << out << "/band.json\n";
}

void run(const RunArgs& a) {
  Scenario sc = load_scenario(a.scenario, a.overrides, a.overlays);  // validates once, before any child starts
  const std::string out = !a.out.empty() ? a.out : sc.outputs.dir + "/" + sc.name;
  const auto policies = name_list(a.policies, "--policy");
  // Unknown policy names fail here, before any simulation, with the list of known ones.
  if (policies.empty()) check_policy(sc, a.scenario, sc.policy.name, a.scenario + ": /policy/name");
  for (const auto& p : policies) check_policy(sc, a.scenario, p, "--policy " + a.policies);
  if (a.threads > 1 && sc.sim.engine != NetworkEngine::Native)
    throw InputError("--threads " + std::to_string(a.threads),
                     "more than one thread needs the native engine (sim.engine = \"native\"); the SimGrid engine "
                     "runs on one thread");
  if (!a.band.empty()) return run_band_of(a, sc, out, policies);
  const std::vector<std::string> names = policies.empty() ? std::vector<std::string>{sc.policy.name} : policies;
  if (a.baseline) {
    if (sc.faults.empty())
      throw InputError("--baseline", "compares a run with faults against the same run without them, but this run "
                                     "has no faults (give --fault or a scenario \"faults\" list)");
    make_output_folder(out, "--out");  // before the children, so a bad --out is one clear line
    run_fault_baselines(a, names, out);
  }
  run_policies(a, std::move(sc), out, policies);
  if (a.baseline && !a.quiet) print_fault_impact(names, out);
}

void run_policies(const RunArgs& a, Scenario sc, const std::string& out, const std::vector<std::string>& policies) {
  if (policies.size() > 1) {
    make_output_folder(out, "--out");  // before the children, so a bad --out is one clear line
    const unsigned parallel = default_parallelism();
    if (!a.quiet)
      std::cerr << "running " << policies.size() << " policies on " << sc.name << " (" << parallel
                << " at a time)...\n";
    // Progress: each policy as it ends, with its time and an estimate of the time left (the mean time per finished
    // policy times those not finished, over the parallel slots).
    const auto started = std::chrono::steady_clock::now();
    size_t finished = 0;
    const auto codes = run_child_jobs(policy_jobs(a, policies, out), parallel, nullptr, [&](size_t i, int code) {
      ++finished;
      if (a.quiet) return;
      const double so_far = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const size_t left = policies.size() - finished;
      std::cerr << "  " << policies[i] << (code == 0 ? " done" : " FAILED") << " (" << finished << " of "
                << policies.size() << ", " << fixed(so_far, 1) << " s so far";
      if (left > 0)
        std::cerr << ", about " << fixed(so_far / static_cast<double>(finished) * static_cast<double>(left) /
                                              std::min<double>(parallel, static_cast<double>(left)), 0)
                  << " s left";
      std::cerr << ")\n";
    });
    std::vector<std::pair<std::string, nlohmann::json>> runs;
    for (size_t i = 0; i < policies.size(); ++i) {
      if (codes[i] != 0)
        throw CLI::RuntimeError("policy " + policies[i] + " failed with exit code " + std::to_string(codes[i]),
                                codes[i] == kExitBadInput ? kExitBadInput : kExitFailure);
      std::ifstream in(out + "/" + policies[i] + "/summary.json");
      runs.emplace_back(policies[i], nlohmann::json::parse(in));
    }
    std::cout << "scenario " << sc.name << ": " << run_summary_from_json(runs.front().second.at("results")).rounds
              << " rounds" << (sc.workload.mode == ArrivalMode::Online ? "" : ", speed-up relative to " + policies.front())
              << "; results in " << out << "/<policy>/\n";
    print_table(runs);
    if (!a.trace.empty())
      for (const auto& p : policies) std::cout << "trace: " << trace_file_for_policy(a.trace, p) << "\n";
    return;
  }
  if (policies.size() == 1) sc.policy.name = policies.front();
#ifdef DUALPATH_HAVE_SIM
  try {
    sim::RunOptions ro;
    ro.trace_file = a.trace;
    ro.trace = a.trace_options;
    ro.progress = !a.quiet && ::isatty(STDERR_FILENO) != 0;
    ro.threads = static_cast<int>(a.threads);
    if (a.baseline) ro.extras.fault_baseline = out + "/baseline";
    if (!a.fault_baseline.empty()) ro.extras.fault_baseline = a.fault_baseline;
    // The loader already resolved workload.file against the scenario's folder.
    const auto outcome = sim::run_scenario(sc, "", out, ro);
    if (!a.quiet) {
      print_table({{sc.policy.name, outcome.summary}});
      std::cout << "simulated " << fixed(outcome.simulated_seconds, 1) << " s in " << fixed(outcome.wall_seconds, 2)
                << " s wall; results in " << out << "/\n";
      if (outcome.traced) {
        const auto& t = outcome.trace;
        std::cout << "trace: " << a.trace << " (" << fixed(static_cast<double>(t.bytes) / 1e6, 1) << " MB, " << t.events
                  << " events; " << t.traced_requests << " requests with flow arrows";
        if (t.folded_forwards > 0) std::cout << ", " << t.folded_forwards << "/" << t.forwards << " forwards folded";
        if (t.transfer_slices < 2 * t.transfers)
          std::cout << ", " << t.transfer_slices / 2 << "/" << t.transfers << " KV transfers shown";
        if (t.read_slices < t.reads) std::cout << ", " << t.read_slices << "/" << t.reads << " reads shown";
        if (t.decode_slices < t.decode_chunks)
          std::cout << ", " << t.decode_chunks << " decode chunks merged into " << t.decode_slices;
        std::cout << ", counters every " << fixed(t.counter_interval, 3) << " s)\n";
      }
    }
  } catch (const NoProgressError& e) {
    std::cerr << "dualpath: run stopped: " << e.what() << "\n";
    throw CLI::RuntimeError(kExitFailure);
  }
#else
  throw InputError("dualpath run", "this build has no simulator (configure with -DDUALPATH_BUILD_SIM=ON)");
#endif
}

}  // namespace

// --fault's help: every kind of core/config/fault_kinds.hpp with an example of its keys, so a new kind shows here.
static std::string fault_option_help() {
  std::string h = "Inject a fault: KIND:key=value,... added to the scenario's \"faults\" (docs/faults.md); repeatable."
                  " Kinds:";
  const auto& rows = fault_kinds();
  for (const auto& row : rows) {
    std::string keys = row.target == FaultTarget::Storage ? "" : row.target == FaultTarget::Gpu ? "node=0,gpu=3," : "node=0,";
    if (has_factor(row.value)) keys += "factor=0.5,";
    const bool lost = row.effect == FaultEffect::LoseNode || row.effect == FaultEffect::LoseGpu;  // no until
    h += " " + row.name + ":" + keys + (lost ? "at=300s" : "at=300s[,until=600s]") +
         (&row == &rows.back() ? "" : ";");
  }
  return h;
}

void register_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scenario and write summary.json, requests.csv, links.csv");
  cmd->add_option("scenario", args->scenario, "Scenario JSON file")->required();
  add_scenario_options(cmd, args->overrides, args->overlays,
                       "Override a field: path=value (e.g. deployment.decode_nodes=2)");
  cmd->add_option("--out", args->out, "Results folder (default: <outputs.dir>/<scenario name>)");
  cmd->add_option("--policy", args->policies, "Policy, or comma-separated policies to compare side by side");
  cmd->add_flag("--quiet", args->quiet, "Print nothing on success (and no progress line)");
  cmd->add_option("--trace", args->trace,
                  "Write a Chrome/Perfetto trace-event JSON timeline (open in ui.perfetto.dev); with several "
                  "policies, one file per policy with the policy name inserted before the extension");
  cmd->add_option("--trace-flows", args->trace_options.flow_requests,
                  "Requests followed by flow arrows in the trace (-1: all)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{-1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--trace-detail", args->trace_options.detail_limit,
                  "Per kind of detail slice (stages, KV transfers, reads, handoffs, decode chunks): beyond this many, "
                  "keep only those of traced requests, fold stages, merge decode chunks (-1: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{-1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--trace-counters", args->trace_options.counter_limit,
                  "Most link counter points in the trace; beyond, sampling intervals are merged (-1: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{-1}, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--fault", args->faults, fault_option_help())
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--threads", args->threads,
                  "Threads for one simulation (native engine): 2 or more runs the link meter (links.csv, link "
                  "utilisation) on a thread of its own beside the simulation; outputs are byte-identical to 1. "
                  "More than 2 uses 2 today")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--baseline", args->baseline,
                "With faults: also run each policy without them (in <run folder>/baseline/) and add "
                "\"fault_impact\" (JCT, TTFT, TPOT, SLO with and without) to its summary.json");
  // --baseline's children: the run without faults this one compares with (hidden: --baseline sets it).
  cmd->add_option("--fault-baseline", args->fault_baseline)->group("");
  cmd->add_option("--band", args->band,
                  "Run once per calibration (comma-separated, e.g. ideal,paper-cluster) into <out>/<calibration>/ "
                  "and print each figure as a range with the calibration at each end (docs/calibration.md)");
  cmd->callback([args] {
    // Each --fault appends one entry to "faults", after every --set (an override like any other: child runs
    // get it through --set).
    for (const std::string& f : args->faults) args->overrides.push_back(fault_override(f));
    run(*args);
  });
}

}  // namespace dualpath::cli
