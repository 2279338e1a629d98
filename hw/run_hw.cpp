#include "hw/run_hw.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>

#include "core/config/loader.hpp"
#include "core/engine/cluster.hpp"
#include "core/metrics/summary.hpp"
#include "core/workload/agents.hpp"

namespace dualpath::hw {

namespace {

// Measured SNIC figures in the simulator's "links" shape: utilisation = requested bytes / (rate x run time).
nlohmann::json link_summary(const HwStats& st, double rate, double span, int prefill_nodes) {
  double pe = 0, de = 0, mx = 0, sum = 0;
  int pe_n = 0, de_n = 0;
  const int n = static_cast<int>(st.node_read_bytes.size());
  for (int i = 0; i < n; ++i) {
    const double b = st.node_read_bytes[i];
    const double u = rate > 0 && span > 0 ? b / (rate * span) : 0;
    (i < prefill_nodes ? pe : de) += u;
    (i < prefill_nodes ? pe_n : de_n) += 1;
    mx = std::max(mx, b), sum += b;
  }
  return {{"measured", "requested bytes per node over the emulated SNIC rate x run time"},
          {"pe_snic_read_utilisation", pe_n ? pe / pe_n : 0.0},
          {"de_snic_read_utilisation", de_n ? de / de_n : 0.0},
          {"snic_read_balance_max_over_avg", sum > 0 ? mx / (sum / n) : 0.0}};
}

}  // namespace

HwRunOutcome run_hw_scenario(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                             const HwOptions& options) {
  const auto wall0 = std::chrono::steady_clock::now();
  const Trace trace = load_workload_trace(sc.workload, scenario_dir);
  std::vector<Agent> agents = make_agents(trace, sc.workload);

  HwBackend backend(sc, options);
  Cluster cluster(sc, std::move(agents), backend);
  HwRunOutcome o;
  std::vector<std::string> errors;
  try {
    o.ok = backend.run([&] { cluster.start(); });
  } catch (const NoProgressError& e) {
    errors.push_back(std::string("no progress: ") + e.what());
  }
  for (const auto& e : backend.errors()) errors.push_back(e);
  if (o.ok && !cluster.finished()) errors.push_back("the run ran out of work: " + cluster.stall_report());
  o.ok = errors.empty();
  if (!o.ok) o.failure = errors.front();

  const RunSummary rs = summarize(cluster.requests(), cluster.totals());
  const auto f = cluster.features();
  const auto& st = backend.stats();
  const auto ss = backend.storage_stats();
  const double span = rs.jct > 0 ? rs.jct : backend.now();
  nlohmann::json hw = {
      {"mode", "single process (threads)"},
      {"compute",
       "emulated: each compute() waits the cost model's predicted seconds; no GPU kernel runs"},
      {"storage_engine", backend.storage_engine()},
      {"storage_dir", options.storage_dir},
      {"snic_rate_bytes_per_s", backend.snic_rate()},
      {"block_bytes", backend.block_bytes()},
      {"kv_transport", backend.kv_transport()},
      {"model_transport", backend.model_transport()},
      {"transport_fallback", backend.transport_fallback()},
      {"storage",
       {{"reads", st.storage_reads},
        {"writes", st.storage_writes},
        {"requested_read_bytes", st.requested_read_bytes},
        {"requested_write_bytes", st.requested_write_bytes},
        {"file_bytes_read", ss.bytes_read},
        {"file_bytes_written", ss.bytes_written},
        {"blocks_read", ss.blocks_read},
        {"blocks_written", ss.blocks_written},
        {"blocks_verified", ss.blocks_verified},
        {"verify_every", options.verify_every},
        {"errors", ss.errors}}},
      {"transfers", {{"count", st.transfers}, {"bytes", st.transferred_bytes}}},
      {"emulated_compute_seconds", st.emulated_compute_seconds},
      {"errors", errors},
  };
  nlohmann::json summary = {
      {"scenario", sc.name},
      {"policy", sc.policy.name},
      {"backend", "hw"},
      {"compute", "emulated"},
      {"features",
       {{"layerwise", f.layerwise}, {"dual_path", f.dual_path}, {"scheduler", f.scheduler}, {"bypass_io", f.bypass_io}}},
      {"qos", sc.policy.qos.enabled},
      {"complete", cluster.finished() && o.ok},
      {"rounds_total", cluster.rounds_total()},
      {"alpha_tokens", cluster.view().alpha_tokens},
      {"beta_tokens", cluster.view().beta_tokens},
      {"peak_dram_buffer_fraction", cluster.peak_buffer_fraction()},
      {"results", to_json(rs)},
      {"links", link_summary(st, backend.snic_rate(), span, sc.deployment.prefill_nodes)},
      {"hw", hw},
      {"config", scenario_to_json(sc)},
  };
  std::filesystem::create_directories(out_dir);
  std::ofstream(out_dir + "/summary.json") << std::setw(2) << summary << '\n';
  {
    std::ofstream req(out_dir + "/requests.csv");
    write_requests_csv(req, cluster.requests());
  }
  o.summary = std::move(summary);
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return o;
}

}  // namespace dualpath::hw
