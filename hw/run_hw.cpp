#include "hw/run_hw.hpp"

#include <algorithm>

#include "core/cluster/cluster.hpp"
#include "core/run/run_pipeline.hpp"
#include "hw/compute_setup.hpp"
#include "hw/hw_backend.hpp"
#include "hw/local_nodes.hpp"

namespace dualpath::hw {

void refuse_mixed_hardware(const Scenario& sc) {
  if (sc.mixed_hardware())
    throw std::invalid_argument("prefill_topology / decode_topology: the hardware backend runs on the machines it is "
                                "given, whose hardware is what it is; a mixed-hardware scenario is the simulator's "
                                "(remove both keys to run it here)");
}

HwRunOutcome run_hw_scenario(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                             const HwOptions& options) {
  if (options.launch != Launch::Threads)
    throw std::invalid_argument(std::string("hw: run_hw_scenario runs one process; --launch ") +
                                name_of(options.launch) +
                                " goes through run_mpi");
  refuse_mixed_hardware(sc);  // before anything is cleared or started
  const int gpus = sc.topology.gpus_per_node * (sc.deployment.prefill_nodes + sc.deployment.decode_nodes);
  const ComputeSetup compute = make_compute_setup(sc, options, 0, gpus);
  clear_storage_dir(options.storage_dir);  // this run's block files must be the only ones
  EventLoop loop;
  LocalNodes nodes(sc, options, loop, compute.kernels, compute.description, compute.copies);
  return drive_and_report(sc, scenario_dir, out_dir, options, loop, nodes);
}

namespace {

// The hardware as the run pipeline's body: errors of storage, transport and node processes do not end the run,
// they make it incomplete; summary.json gains what moved the bytes ("hw") and links measured from completed
// operations.
class HwBody final : public RunBody {
 public:
  HwBody(const Scenario& sc, const HwOptions& options, EventLoop& loop, NodeLink& nodes)
      : options_(options),
        nodes_(nodes),
        snic_(options.snic_rate > 0 ? options.snic_rate : sc.topology.snic_bw),
        link_log_(sc.deployment.prefill_nodes + sc.deployment.decode_nodes, sc.topology.gpus_per_node, snic_,
                  sc.topology.cnic_bw, sc.outputs.link_sample_interval),
        backend_(sc, loop, nodes, &link_log_) {
    if (sc.topology.storage.gdr)
      throw std::invalid_argument("topology.storage.gdr: the hardware backend reads storage into host memory only (its "
                                  "block store has no GPUDirect Storage path, and 3FS's GDR has no fallback to host "
                                  "memory); expected false");
  }
  Backend& backend() override { return backend_; }
  DriveEnd drive(Cluster& cluster) override {
    DriveEnd end;
    end.cut_short = true;  // by an error (the backend's, or one thrown by the core)
    try {
      end.cut_short = !backend_.run([&] { cluster.start(); });
    } catch (const NoProgressError& e) {
      end.errors.push_back(std::string("no progress: ") + e.what());
    } catch (const StorageError& e) {
      end.errors.push_back(e.what());
    }
    for (const auto& e : backend_.errors()) end.errors.push_back(e);
    return end;
  }
  void stalled(const std::string& report, std::vector<std::string>& errors) override {
    errors.push_back("the run ran out of work: " + report);
  }
  const LinkReport& links(const RunSummary& results) override {
    report_ = link_log_.report(results.jct > 0 ? results.jct : backend_.now());
    return report_;
  }
  void add_sections(nlohmann::json& summary, const Cluster& cluster, std::vector<std::string>& errors) override {
    const auto& st = backend_.stats();
    nlohmann::json hw = nodes_.report();  // its errors (node processes that failed or hung) count too
    for (const auto& e : hw.value("errors", nlohmann::json::array())) errors.push_back(e.get<std::string>());
    const bool real = hw.value("compute_real", false);
    hw["storage_dir"] = options_.storage_dir;
    hw["snic_rate_bytes_per_s"] = snic_;
    hw["block_bytes"] = backend_.block_bytes();
    hw["storage"]["reads"] = st.storage_reads;
    hw["storage"]["writes"] = st.storage_writes;
    hw["storage"]["requested_read_bytes"] = st.requested_read_bytes;
    hw["storage"]["requested_write_bytes"] = st.requested_write_bytes;
    hw["storage"]["verify_every"] = options_.verify_every;
    hw["transfers"] = {{"count", st.transfers}, {"bytes", st.transferred_bytes}};
    hw["predicted_compute_seconds"] = st.predicted_compute_seconds;
    // Reads that failed and were retried (the run went on): how many, and the first few reasons.
    hw["read_retries"] = cluster.read_retries();
    const auto& rf = cluster.read_failures();
    hw["read_failures"] = std::vector<std::string>(rf.begin(), rf.begin() + std::min<size_t>(rf.size(), 20));
    hw["errors"] = errors;
    summary["links"]["measured"] = "bytes of completed operations per link over the emulated SNIC rate x run time";
    summary["backend"] = "hw";
    summary["compute"] = real ? "measured" : "emulated";
    summary["hw"] = std::move(hw);
  }
  nlohmann::json perf_counts() const override {
    const auto& st = backend_.stats();
    return {{"transfers", st.transfers}, {"storage_reads", st.storage_reads}, {"storage_writes", st.storage_writes}};
  }
  double end_time() const override { return backend_.now(); }

 private:
  const HwOptions& options_;
  NodeLink& nodes_;
  double snic_;
  LinkLog link_log_;
  HwBackend backend_;
  LinkReport report_;
};

}  // namespace

HwRunOutcome drive_and_report(const Scenario& sc, const std::string& scenario_dir, const std::string& out_dir,
                              const HwOptions& options, EventLoop& loop, NodeLink& nodes) {
  HwBody body(sc, options, loop, nodes);
  const RunResult r = run_pipeline(sc, scenario_dir, out_dir, body);
  HwRunOutcome o;
  o.ok = r.errors.empty();
  if (!o.ok) o.failure = r.errors.front();
  o.summary = r.summary;
  o.wall_seconds = r.wall_seconds;
  return o;
}

}  // namespace dualpath::hw
