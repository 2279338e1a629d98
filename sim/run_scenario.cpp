#include "sim/run_scenario.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/cluster/cluster.hpp"
#include "core/metrics/progress.hpp"
#include "core/config/output_file.hpp"
#include "core/run/run_pipeline.hpp"
#include "core/run/run_records.hpp"
#include "core/sched/policy_registry.hpp"
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
  for (const auto& l : rep.links) in.links.push_back({l.name, l.cls, l.node, l.gpu, l.bandwidth});
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

// The simulator as the run pipeline's body: it streams links.csv, logs activity for a trace, shows progress, and
// writes the trace after the run.
class SimBody final : public RunBody {
 public:
  SimBody(const Scenario& sc, const RunOptions& options) : sc_(sc), options_(options) {
    SimOptions opt;
    opt.link_sample_interval = sc.outputs.link_sample_interval;
    opt.threads = options.threads;
    opt.full_lmm_update = sc.sim.lmm_update == LmmUpdate::Full ||
                          (sc.sim.lmm_update == LmmUpdate::Auto && effective_features(sc.policy).dual_path);
    sim_ = make_simulator(sc.sim.engine, Hardware(sc.pe_topology(), sc.de_topology()), sc.deployment, sc.policy.qos, sc.sim, opt);
  }
  Backend& backend() override { return *sim_; }
  // The trace file is written after the run from every request.
  bool frees_settled() const override { return options_.trace_file.empty(); }
  void attach(Cluster& cluster, RunRecords& records) override {
    if (!options_.trace_file.empty()) cluster.set_activity_log(&log_);
    if (options_.trace_file.empty()) sim_->set_link_sample_sink(records.stream_links_csv(sim_->links().links));
    if (options_.progress) {
      progress_ = std::make_shared<ProgressHook>();
      progress_->cluster = &cluster;
      sim_->set_step_hook([p = progress_](double now) {
        if (!p->active || (++p->calls & 63u) != 0) return;
        p->line.update(now, p->cluster->rounds_done(), p->cluster->rounds_total());
      });
    }
  }
  DriveEnd drive(Cluster& cluster) override {
    struct StopProgress {  // also on exceptions
      ProgressHook* p;
      explicit StopProgress(ProgressHook* hook) : p(hook) {}
      StopProgress(const StopProgress&) = delete;
      StopProgress& operator=(const StopProgress&) = delete;
      ~StopProgress() {
        if (!p) return;
        p->active = false;
        p->line.finish();
      }
    } stop_progress{progress_.get()};
    sim_->run([&] { cluster.start(); });
    return {sim_->hit_time_limit() || sim_->stopped_early(), {}};
  }
  void stalled(const std::string& report, std::vector<std::string>&) override {
    throw NoProgressError("the simulation ran out of work: " + report);
  }
  const LinkReport& links(const RunSummary&) override { return sim_->links(); }
  void finish(const Cluster& cluster) override {
    if (options_.trace_file.empty()) return;
    trace_ = write_trace(options_.trace_file, sc_, cluster, log_, sim_->links(), options_.trace);
    traced_ = true;
  }
  nlohmann::json perf_counts() const override {
    const auto& st = sim_->stats();
    return {{"transfers", st.transfers}, {"timers", st.timers}, {"callbacks", st.callbacks},
            {"solver_steps", st.solver_steps}, {"threads", options_.threads > 1 ? 2 : 1},
            {"census",
             {{"completions", st.completions},
              {"idle_steps", st.idle_steps},
              {"solves", st.solves},
              {"resolved_flows", st.resolved_flows},
              {"max_resolved", st.max_resolved}}}};
  }
  double end_time() const override { return sim_->links().end_time; }
  uint64_t events() const { return sim_->stats().callbacks; }
  bool traced() const { return traced_; }
  const TraceEventStats& trace() const { return trace_; }

 private:
  const Scenario& sc_;
  const RunOptions& options_;
  std::unique_ptr<Simulator> sim_;
  ActivityLog log_;
  std::shared_ptr<ProgressHook> progress_;
  bool traced_ = false;
  TraceEventStats trace_;
};

}  // namespace

RunOutcome run_scenario(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                        const RunOptions& options) {
  make_output_folder(out_dir, "--out");  // before the simulator is built, so a bad --out costs nothing
  SimBody body(sc, options);
  const RunResult r = run_pipeline(sc, scenario_dir, out_dir, body, options.extras);
  RunOutcome o;
  o.summary = r.summary;
  o.wall_seconds = r.wall_seconds;
  o.simulated_seconds = r.simulated_seconds;
  o.events = body.events();
  o.traced = body.traced();
  o.trace = body.trace();
  return o;
}

}  // namespace dualpath::sim
