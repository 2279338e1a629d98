#include "hw/run_hw.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "core/config/loader.hpp"
#include "core/cluster/cluster.hpp"
#include "core/metrics/summary.hpp"
#include "core/run/run_folder.hpp"
#include "core/run/run_records.hpp"
#include "core/workload/agents.hpp"
#include "hw/compute_setup.hpp"
#include "hw/hw_backend.hpp"
#include "hw/local_nodes.hpp"

namespace dualpath::hw {

HwRunOutcome run_hw_scenario(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                             const HwOptions& options) {
  if (options.launch != "threads")
    throw std::invalid_argument("hw: run_hw_scenario runs one process; --launch " + options.launch +
                                " goes through run_mpi");
  const int gpus = sc.topology.gpus_per_node * (sc.deployment.prefill_nodes + sc.deployment.decode_nodes);
  const ComputeSetup compute = make_compute_setup(sc, options, 0, gpus);
  clear_storage_dir(options.storage_dir);  // this run's block files must be the only ones
  EventLoop loop;
  LocalNodes nodes(sc, options, loop, compute.kernels, compute.description, compute.copies);
  return drive_and_report(sc, scenario_dir, out_dir, options, loop, nodes);
}

HwRunOutcome drive_and_report(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                              const HwOptions& options, EventLoop& loop, NodeLink& nodes) {
  const auto wall0 = std::chrono::steady_clock::now();
  // The trace lives only while the agents are made from it (a long online run's input is large).
  std::vector<Agent> agents = make_agents(load_workload_trace(sc.workload, scenario_dir), sc.workload);
  const ZeroServiceReuse reuse = zero_service_reuse(agents, sc.policy.block_tokens);

  const double snic = options.snic_rate > 0 ? options.snic_rate : sc.topology.snic_bw;
  LinkLog links(sc.deployment.prefill_nodes + sc.deployment.decode_nodes, sc.topology.gpus_per_node, snic,
                sc.topology.cnic_bw, sc.outputs.link_sample_interval);
  HwBackend backend(sc, loop, nodes, &links);
  Cluster cluster(sc, std::move(agents), backend);
  std::filesystem::create_directories(out_dir);  // requests.csv is streamed into it as requests settle
  RunRecords records(out_dir, sc.slo, sc.workload.mode == ArrivalMode::Online);
  cluster.set_request_sink(&records, /*free_settled=*/true);
  HwRunOutcome o;
  std::vector<std::string> errors;
  bool stopped = true;  // by an error (the backend's, or one thrown by the core)
  try {
    stopped = !backend.run([&] { cluster.start(); });
  } catch (const NoProgressError& e) {
    errors.push_back(std::string("no progress: ") + e.what());
  } catch (const StorageError& e) {
    errors.push_back(e.what());
  }
  for (const auto& e : backend.errors()) errors.push_back(e);
  if (!stopped && !cluster.finished()) errors.push_back("the run ran out of work: " + cluster.stall_report());

  cluster.hand_over_rest();
  const RunSummary rs = records.summary(cluster.totals());
  const auto& st = backend.stats();
  const double span = rs.jct > 0 ? rs.jct : backend.now();
  nlohmann::json hw = nodes.report();  // its errors (node processes that failed or hung) count too
  for (const auto& e : hw.value("errors", nlohmann::json::array())) errors.push_back(e.get<std::string>());
  o.ok = errors.empty();
  if (!o.ok) o.failure = errors.front();
  const bool real = hw.value("compute_real", false);
  hw["storage_dir"] = options.storage_dir;
  hw["snic_rate_bytes_per_s"] = snic;
  hw["block_bytes"] = backend.block_bytes();
  hw["storage"]["reads"] = st.storage_reads;
  hw["storage"]["writes"] = st.storage_writes;
  hw["storage"]["requested_read_bytes"] = st.requested_read_bytes;
  hw["storage"]["requested_write_bytes"] = st.requested_write_bytes;
  hw["storage"]["verify_every"] = options.verify_every;
  hw["transfers"] = {{"count", st.transfers}, {"bytes", st.transferred_bytes}};
  hw["predicted_compute_seconds"] = st.predicted_compute_seconds;
  // Reads that failed and were retried (the run went on): how many, and the first few reasons.
  hw["read_retries"] = cluster.read_retries();
  const auto& rf = cluster.read_failures();
  hw["read_failures"] = std::vector<std::string>(rf.begin(), rf.begin() + std::min<size_t>(rf.size(), 20));
  hw["errors"] = errors;
  const LinkReport link_report = links.report(span);
  nlohmann::json summary =
      run_summary(sc, cluster, rs, reuse, link_report, cluster.finished() && errors.empty(),
                  records.working_set(cluster.agents(), rs.aps));
  summary["links"]["measured"] = "bytes of completed operations per link over the emulated SNIC rate x run time";
  summary["backend"] = "hw";
  summary["compute"] = real ? "measured" : "emulated";
  summary["hw"] = hw;
  write_run_folder(out_dir, summary, records, cluster, link_report);
  o.summary = std::move(summary);
  o.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return o;
}

}  // namespace dualpath::hw
