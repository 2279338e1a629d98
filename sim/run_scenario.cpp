#include "sim/run_scenario.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iomanip>
#include <memory>

#include "core/run/build_info.hpp"
#include "core/config/loader.hpp"
#include "core/cluster/cluster.hpp"
#include "core/metrics/progress.hpp"
#include "core/run/summary_sections.hpp"
#include "core/metrics/run_folders.hpp"
#include "core/metrics/summary.hpp"
#include "core/config/output_file.hpp"
#include "core/run/run_folder.hpp"
#include "core/run/run_records.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/workload/agents.hpp"
#include "sim/simulator.hpp"

namespace dualpath::sim {

namespace {

TraceEventStats write_trace(const std::string& file, const Scenario& sc, const Cluster& cluster, const ActivityLog& log,
                       const LinkReport& rep, const TraceOptions& options) {
  TraceInput in;
  in.title = sc.name + " / " + sc.policy.name;
  in.gpus_per_node = sc.topology.gpus_per_node;
  in.prefill_nodes = sc.deployment.prefill_nodes;
  in.decode_nodes = sc.deployment.decode_nodes;
  in.pe_units = cluster.pe_units();
  in.de_units = cluster.de_units();
  in.log = &log;
  in.requests = &cluster.requests();
  in.links.reserve(rep.links.size());
  for (const auto& l : rep.links) in.links.push_back({l.name, link_class_name(l.cls), l.node, l.gpu, l.bandwidth});
  in.samples.reserve(rep.samples.size());
  for (const auto& s : rep.samples) in.samples.push_back({s.time, s.duration, s.link, s.model_utilisation, s.kv_utilisation});
  in.sample_interval = rep.interval;
  in.end_time = rep.end_time;
  for (const auto& f : cluster.faults()) {
    if (f.started < 0) continue;  // the run ended before it hit
    std::ostringstream name;
    name << name_of(f.spec.kind);
    if (has_factor(f.spec.kind)) name << " x" << f.spec.factor;
    if (f.spec.gpu >= 0) name << " gpu " << f.spec.gpu;
    in.faults.push_back({name.str(), f.spec.node, f.started, f.ended});
  }
  const auto parent = std::filesystem::path(file).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream out(file, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write trace file " + file);
  TraceEventStats st = write_trace_events(out, in, options);
  out.close();
  if (!out) throw std::runtime_error("failed writing trace file " + file);
  return st;
}

// Shows a progress line while SimGrid advances simulated time. A time-advance listener, not a timer: it starts
// no work, so it changes neither the results nor when the simulation ends.
struct ProgressHook {
  ProgressLine line;
  const Cluster* cluster = nullptr;
  bool active = true;
  unsigned calls = 0;
};

}  // namespace

RunOutcome run_scenario(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                        const RunOptions& options) {
  make_output_folder(out_dir, "--out");  // before the run, so a bad --out costs nothing
  const auto wall0 = std::chrono::steady_clock::now();
  // The trace lives only while the agents are made from it (a long online run's input is large).
  std::vector<Agent> agents = make_agents(load_workload_trace(sc.workload, scenario_dir), sc.workload);
  const ZeroServiceReuse reuse = zero_service_reuse(agents, sc.policy.block_tokens);

  SimOptions opt;
  opt.link_sample_interval = sc.outputs.link_sample_interval;
  opt.full_lmm_update = sc.sim.lmm_update == LmmUpdate::Full ||
                        (sc.sim.lmm_update == LmmUpdate::Auto && effective_features(sc.policy).dual_path);
  const std::unique_ptr<Simulator> sim =
      make_simulator(sc.sim.engine, sc.topology, sc.deployment, sc.policy.qos, sc.sim, opt);
  Simulator& backend = *sim;
  Cluster cluster(sc, std::move(agents), backend);
  ActivityLog log;
  if (!options.trace_file.empty()) cluster.set_activity_log(&log);
  // requests.csv and the summary are folded as requests settle; the Cluster frees them then, except when the trace
  // file (written after the run from every request) is asked for.
  RunRecords records(out_dir, sc.slo, sc.workload.mode == ArrivalMode::Online);
  cluster.set_request_sink(&records, options.trace_file.empty());
  if (options.trace_file.empty()) backend.set_link_sample_sink(records.stream_links_csv(backend.links().links));
  std::shared_ptr<ProgressHook> progress;
  if (options.progress) {
    progress = std::make_shared<ProgressHook>();
    progress->cluster = &cluster;
    backend.set_step_hook([progress](double now) {
      if (!progress->active || (++progress->calls & 63u) != 0) return;
      progress->line.update(now, progress->cluster->rounds_done(), progress->cluster->rounds_total());
    });
  }
  struct StopProgress {  // also on exceptions
    std::shared_ptr<ProgressHook> p;
    explicit StopProgress(std::shared_ptr<ProgressHook> h) : p(std::move(h)) {}
    StopProgress(const StopProgress&) = delete;
    StopProgress& operator=(const StopProgress&) = delete;
    void operator()() {
      if (!p) return;
      p->active = false;
      p->line.finish();
      p = nullptr;
    }
    ~StopProgress() { (*this)(); }
  } stop_progress{progress};
  backend.run([&] { cluster.start(); });
  stop_progress();
  if (!cluster.finished() && !backend.hit_time_limit() && !backend.stopped_early())
    throw NoProgressError("the simulation ran out of work: " + cluster.stall_report());

  cluster.hand_over_rest();
  const RunSummary rs = records.summary(cluster.totals());
  nlohmann::json summary = run_summary(sc, cluster, rs, reuse, backend.links(), cluster.finished(),
                                       records.working_set(cluster.agents(), rs.aps));
  if (const StopRule* rule = cluster.stop_rule()) {
    // Which rule ended the online run, when, and the TTFT window means it judged (paper §7.6).
    const char* why = cluster.stop_reason() != StopReason::None ? stop_reason_name(cluster.stop_reason())
                      : cluster.finished()                       ? "all_agents_done"
                                                                 : "time_limit";
    StopFigures stop;
    stop.ended_by = why;
    stop.at_s = cluster.stop_reason() != StopReason::None ? cluster.stop_time() : rs.first_arrival + rs.jct;
    stop.ttft_window_mean_s = rule->window_mean();
    if (rule->lookback_mean() >= 0) stop.ttft_lookback_mean_s = rule->lookback_mean();
    stop.window_s = rule->spec().window, stop.lookback_s = rule->spec().lookback;
    stop.tolerance = rule->spec().tolerance;
    summary["stop"] = to_json(stop);
  }
  write_run_folder(out_dir, summary, records, cluster, backend.links());

  RunOutcome o;
  if (!options.trace_file.empty()) {
    o.trace = write_trace(options.trace_file, sc, cluster, log, backend.links(), options.trace);
    o.traced = true;
  }
  o.summary = summary;
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  o.simulated_seconds = backend.links().end_time;
  const auto& st = backend.stats();
  o.events = st.callbacks;
  std::ostringstream perf;
  perf << std::setw(2) << nlohmann::json{{"version", build_version()},
                                                          {"wall_s", o.wall_seconds},
                                                          {"simulated_s", o.simulated_seconds},
                                                          {"transfers", st.transfers},
                                                          {"timers", st.timers},
                                                          {"callbacks", st.callbacks},
                                                          {"solver_steps", st.solver_steps}}
       << '\n';
  write_text_atomically(out_dir + "/perf.json", perf.str());
  return o;
}

}  // namespace dualpath::sim
