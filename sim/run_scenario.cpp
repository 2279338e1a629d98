#include "sim/run_scenario.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>

#include "core/config/loader.hpp"
#include "core/engine/cluster.hpp"
#include "core/metrics/progress.hpp"
#include "core/metrics/run_folders.hpp"
#include "core/metrics/summary.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/workload/agents.hpp"
#include "sim/simulator.hpp"

namespace dualpath::sim {

namespace {

// Per link class: mean utilisation over the run (averaged over the class's links), and for SNICs the balance
// max/avg of bytes read across nodes, split by prefill and decode nodes.
nlohmann::json link_summary(const LinkReport& rep, int prefill_nodes) {
  std::map<std::string, std::pair<double, int>> by_class;
  double pe_snic = 0, de_snic = 0, snic_max = 0, snic_sum = 0;
  int pe_n = 0, de_n = 0, snic_n = 0;
  for (const auto& l : rep.links) {
    auto& [sum, n] = by_class[link_class_name(l.cls)];
    sum += l.mean_utilisation, n += 1;
    if (l.cls == LinkClass::SnicDown) {
      (l.node < prefill_nodes ? pe_snic : de_snic) += l.mean_utilisation;
      (l.node < prefill_nodes ? pe_n : de_n) += 1;
      snic_max = std::max(snic_max, l.bytes());
      snic_sum += l.bytes(), snic_n += 1;
    }
  }
  nlohmann::json util = nlohmann::json::object();
  for (const auto& [cls, v] : by_class) util[cls] = v.first / v.second;
  return {{"mean_utilisation_by_class", util},
          {"pe_snic_read_utilisation", pe_n ? pe_snic / pe_n : 0.0},
          {"de_snic_read_utilisation", de_n ? de_snic / de_n : 0.0},
          {"snic_read_balance_max_over_avg", snic_sum > 0 ? snic_max / (snic_sum / snic_n) : 0.0}};
}

void write_links_csv(const std::string& path, const LinkReport& rep) {
  std::ofstream out(path);
  out << "time,duration,link,class,node,gpu,utilisation,model_utilisation,kv_utilisation\n" << std::setprecision(6);
  for (const auto& s : rep.samples) {
    const auto& l = rep.links[s.link];
    out << s.time << ',' << s.duration << ',' << l.name << ',' << link_class_name(l.cls) << ',' << l.node << ','
        << l.gpu << ',' << s.utilisation() << ',' << s.model_utilisation << ',' << s.kv_utilisation << '\n';
  }
}

// The lockstep units of the cluster (as Cluster builds them): a whole EP group when weights are sharded, else
// each engine on its own. The activity log's `unit` indexes these.
std::vector<std::vector<int>> units_of(const std::vector<std::vector<int>>& groups, bool sharded) {
  std::vector<std::vector<int>> units;
  for (const auto& g : groups) {
    if (sharded) units.push_back(g);
    else
      for (int e : g) units.push_back({e});
  }
  return units;
}

TraceStats write_trace(const std::string& file, const Scenario& sc, const Cluster& cluster, const ActivityLog& log,
                       const LinkReport& rep, const TraceOptions& options) {
  TraceInput in;
  in.title = sc.name + " / " + sc.policy.name;
  in.gpus_per_node = sc.topology.gpus_per_node;
  in.prefill_nodes = sc.deployment.prefill_nodes;
  in.decode_nodes = sc.deployment.decode_nodes;
  const bool sharded = cluster.cost().sharded_weights();
  in.pe_units = units_of(cluster.view().pe_groups, sharded);
  in.de_units = units_of(cluster.view().de_groups, sharded);
  in.log = &log;
  in.requests = &cluster.requests();
  in.links.reserve(rep.links.size());
  for (const auto& l : rep.links) in.links.push_back({l.name, link_class_name(l.cls), l.node, l.gpu, l.bandwidth});
  in.samples.reserve(rep.samples.size());
  for (const auto& s : rep.samples) in.samples.push_back({s.time, s.duration, s.link, s.model_utilisation, s.kv_utilisation});
  in.sample_interval = rep.interval;
  in.end_time = rep.end_time;
  const auto parent = std::filesystem::path(file).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream out(file, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write trace file " + file);
  TraceStats st = write_trace_events(out, in, options);
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
  const Trace trace = load_workload_trace(sc.workload, scenario_dir);
  std::vector<Agent> agents = make_agents(trace, sc.workload);
  const ZeroServiceReuse reuse = zero_service_reuse(agents, sc.policy.block_tokens);

  SimOptions opt;
  opt.link_sample_interval = sc.outputs.link_sample_interval;
  opt.full_lmm_update = sc.sim.lmm_update == "full" ||
                        (sc.sim.lmm_update == "auto" && effective_features(sc.policy).dual_path);
  const std::unique_ptr<Simulator> sim =
      make_simulator(sc.sim.engine, sc.topology, sc.deployment, sc.policy.qos, sc.sim, opt);
  Simulator& backend = *sim;
  Cluster cluster(sc, std::move(agents), backend);
  ActivityLog log;
  if (!options.trace_file.empty()) cluster.set_activity_log(&log);
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

  const RunSummary rs = summarize(cluster.requests(), cluster.totals(), sc.slo);
  const auto f = cluster.features();
  nlohmann::json summary = {
      {"scenario", sc.name},
      {"policy", sc.policy.name},
      {"features",
       {{"layerwise", f.layerwise}, {"dual_path", f.dual_path}, {"scheduler", f.scheduler}, {"bypass_io", f.bypass_io}}},
      {"qos", sc.policy.qos.enabled},
      {"complete", cluster.finished()},
      {"rounds_total", cluster.rounds_total()},
      {"alpha_tokens", cluster.view().alpha_tokens},
      {"beta_tokens", cluster.view().beta_tokens},
      {"peak_dram_buffer_fraction", cluster.peak_buffer_fraction()},
      {"results", to_json(rs)},
      {"reuse", reuse_json(reuse, rs)},
      {"links", link_summary(backend.links(), sc.deployment.prefill_nodes)},
      {"waits", cluster.waits().to_json(rs.first_arrival + rs.jct, cluster.resource_use(rs.first_arrival + rs.jct))},
      {"overlays", sc.overlays},  // overlay files applied before --set, in order (their effect is in "config")
      {"config", scenario_to_json(sc)},
  };
  if (const StopRule* rule = cluster.stop_rule()) {
    // Which rule ended the online run, when, and the TTFT window means it judged (paper §7.6).
    const char* why = cluster.stop_reason() != StopReason::None ? stop_reason_name(cluster.stop_reason())
                      : cluster.finished()                       ? "all_agents_done"
                                                                 : "time_limit";
    summary["stop"] = {{"rule", "slo"},
                       {"ended_by", why},
                       {"at_s", cluster.stop_reason() != StopReason::None ? cluster.stop_time() : rs.first_arrival + rs.jct},
                       {"ttft_window_mean_s", rule->window_mean()},
                       {"ttft_lookback_mean_s", rule->lookback_mean() >= 0 ? nlohmann::json(rule->lookback_mean()) : nlohmann::json()},
                       {"window_s", rule->spec().window},
                       {"lookback_s", rule->spec().lookback},
                       {"tolerance", rule->spec().tolerance}};
  }

  std::ofstream(out_dir + "/summary.json") << std::setw(2) << summary << '\n';
  {
    std::ofstream req(out_dir + "/requests.csv");
    write_requests_csv(req, cluster.requests());
  }
  {
    std::ofstream waits(out_dir + "/waits.csv");
    cluster.waits().write_csv(waits);
  }
  write_links_csv(out_dir + "/links.csv", backend.links());

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
  std::ofstream(out_dir + "/perf.json") << std::setw(2)
                                        << nlohmann::json{{"wall_s", o.wall_seconds},
                                                          {"simulated_s", o.simulated_seconds},
                                                          {"transfers", st.transfers},
                                                          {"timers", st.timers},
                                                          {"callbacks", st.callbacks},
                                                          {"solver_steps", st.solver_steps}}
                                        << '\n';
  return o;
}

}  // namespace dualpath::sim
