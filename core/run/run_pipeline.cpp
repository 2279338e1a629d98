#include "core/run/run_pipeline.hpp"

#include <chrono>
#include <iomanip>
#include <sstream>
#include <utility>

#include "core/cluster/cluster.hpp"
#include "core/config/loader.hpp"
#include "core/config/output_file.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/run/build_info.hpp"
#include "core/run/fault_impact.hpp"
#include "core/run/run_folder.hpp"
#include "core/run/run_records.hpp"
#include "core/run/summary_sections.hpp"
#include "core/workload/agents.hpp"

namespace dualpath {

namespace {

// "stop": which rule ended an online run with a stop rule, when, and the TTFT window means it judged (§7.6).
StopFigures stop_figures(const Cluster& cluster, const StopRule& rule, const RunSummary& rs) {
  const bool by_rule = cluster.stop_reason() != StopReason::None;
  StopFigures stop;
  stop.ended_by = cluster.stop_reason() == StopReason::SloViolated ? RunEnd::SloViolated
                  : by_rule                                         ? RunEnd::SteadyState
                  : cluster.finished()                              ? RunEnd::AllAgentsDone
                                                                    : RunEnd::TimeLimit;
  stop.at_s = by_rule ? cluster.stop_time() : rs.first_arrival + rs.jct;
  stop.ttft_window_mean_s = rule.window_mean();
  if (rule.lookback_mean() >= 0) stop.ttft_lookback_mean_s = rule.lookback_mean();
  stop.window_s = rule.spec().window, stop.lookback_s = rule.spec().lookback;
  stop.tolerance = rule.spec().tolerance;
  stop.load_flat = rule.spec().load_flat;
  if (rule.load_recent() >= 0) stop.load_recent_tokens_per_s = rule.load_recent();
  if (rule.load_earlier() >= 0) stop.load_earlier_tokens_per_s = rule.load_earlier();
  if (rule.agents_recent() >= 0) stop.agents_in_flight_recent = rule.agents_recent();
  if (rule.agents_earlier() >= 0) stop.agents_in_flight_earlier = rule.agents_earlier();
  return stop;
}

}  // namespace

RunResult run_pipeline(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                       RunBody& body, const RunExtras& extras) {
  make_output_folder(out_dir, "--out");  // before the run, so a bad --out costs nothing
  const auto wall0 = std::chrono::steady_clock::now();
  // The trace lives only while the agents are made from it (a long online run's input is large).
  std::vector<Agent> agents = make_agents(load_workload_trace(sc.workload, scenario_dir), sc.workload);
  const ZeroServiceReuse reuse = zero_service_reuse(agents, sc.policy.block_tokens);
  // Read before the run, so a missing baseline costs nothing.
  std::optional<RunSummary> baseline;
  if (extras.fault_baseline) baseline = baseline_results(*extras.fault_baseline);

  Cluster cluster(sc, std::move(agents), body.backend());
  // requests.csv and the summary are folded as requests settle; the Cluster frees them then unless the body reads
  // them all after the run.
  RunRecords records(out_dir, sc.slo, sc.workload.mode == ArrivalMode::Online);
  cluster.set_request_sink(&records, body.frees_settled());
  body.attach(cluster, records);
  RunBody::DriveEnd end = body.drive(cluster);
  RunResult result;
  result.errors = std::move(end.errors);
  if (!end.cut_short && !cluster.finished()) body.stalled(cluster.stall_report(), result.errors);

  cluster.hand_over_rest();
  const RunSummary rs = records.summary(cluster.totals());
  const LinkReport& links = body.links(rs);
  nlohmann::json extra = nlohmann::json::object();
  body.add_sections(extra, cluster, result.errors);
  nlohmann::json summary = run_summary(sc, cluster, rs, reuse, links, cluster.finished() && result.errors.empty(),
                                       records.working_set(cluster.agents(), rs.aps));
  for (auto& [key, value] : extra.items()) {  // a body's object (e.g. "links") adds to the common one
    nlohmann::json& slot = summary[key];
    if (slot.is_object() && value.is_object())
      slot.update(value, /*merge_objects=*/true);
    else
      slot = std::move(value);
  }
  if (const StopRule* rule = cluster.stop_rule()) summary["stop"] = to_json(stop_figures(cluster, *rule, rs));
  if (baseline) summary["fault_impact"] = fault_impact(rs, *baseline, *extras.fault_baseline);
  write_run_folder(out_dir, summary, records, cluster, links);
  body.finish(cluster);

  result.summary = std::move(summary);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  result.simulated_seconds = body.end_time();
  nlohmann::json perf = body.perf_counts();
  perf["version"] = build_version();
  perf["wall_s"] = result.wall_seconds;
  perf["simulated_s"] = result.simulated_seconds;
  std::ostringstream text;
  text << std::setw(2) << perf << '\n';
  write_text_atomically(out_dir + "/perf.json", text.str());
  return result;
}

}  // namespace dualpath
