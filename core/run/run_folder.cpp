#include "core/run/run_folder.hpp"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "core/config/loader.hpp"
#include "core/config/output_file.hpp"
#include "core/cluster/cluster.hpp"
#include "core/run/run_records.hpp"
#include "core/run/summary_sections.hpp"

namespace dualpath {

nlohmann::json run_summary(const Scenario& sc, const Cluster& cluster, const RunSummary& rs,
                           const ZeroServiceReuse& reuse, const LinkReport& links, bool complete,
                           const std::optional<WorkingSet>& working_set) {
  const auto f = cluster.features();
  const double end = rs.first_arrival + rs.jct;
  nlohmann::json features = {{"layerwise", f.layerwise}, {"dual_path", f.dual_path}, {"scheduler", f.scheduler},
                             {"bypass_io", f.bypass_io}, {"dram_pool", f.dram_pool}};
  // The baselines' mechanisms (docs/baselines.md) are named when on, so the paper's policies read as before.
  if (f.de_prefetch) features["de_prefetch"] = true;
  if (f.de_resident) features["de_resident"] = true;
  nlohmann::json out = {
      {"scenario", sc.name},
      {"policy", sc.policy.name},
      {"features", features},
      {"qos", sc.policy.qos.enabled},
      {"complete", complete},
      {"rounds_total", cluster.rounds_total()},
      {"alpha_tokens", cluster.view().alpha_tokens},
      {"beta_tokens", cluster.view().beta_tokens},
      {"peak_dram_buffer_fraction", cluster.peak_buffer_fraction()},
      {"results", to_json(rs)},
      {"reuse", reuse_json(reuse, rs)},
      {"links", to_json(link_summary(links, sc.deployment.prefill_nodes))},
      {"waits", cluster.waits().to_json(end, cluster.resource_use(end))},
      {"overlays", sc.overlays},  // overlay files applied before --set, in order (their effect is in "config")
      {"calibration", calibration_json(sc)},  // the cluster calibration under them (docs/calibration.md)
      {"config", scenario_to_json(sc)},
  };
  // The KV tiers' own sections (the DRAM pool's "pool": its capacity, occupancy, what it served and evicted).
  cluster.kv_sources().report(end, cluster.totals(), out);
  if (const DeResidency* kept = cluster.residency()) {  // pe-pull-from-de (docs/baselines.md)
    const DeResidency::Figures& k = kept->figures();
    const double hit = cluster.totals().de_hbm_to_pe + cluster.totals().storage_read;
    out["de_residency"] = {
        {"retention_s", kept->retention()},
        {"hit_bytes_pulled_from_de_hbm", cluster.totals().de_hbm_to_pe},
        {"hit_bytes_from_storage", cluster.totals().storage_read},
        {"pulled_share", hit > 0 ? cluster.totals().de_hbm_to_pe / hit : 0.0},
        {"contexts_kept", k.kept},
        {"contexts_taken", k.taken},
        {"contexts_expired", k.expired},
        {"contexts_dropped", k.dropped},
        {"kept_bytes", k.kept_bytes},
        {"taken_bytes", k.taken_bytes},
        {"expired_bytes", k.expired_bytes},
        {"dropped_bytes", k.dropped_bytes},
        {"held_peak_bytes", kept->peak_held_bytes()},
        {"held_end_bytes", kept->held_bytes()},
    };
  }
  // Online runs: the KV working set, by the law and as measured (what a KV cache would have to hold).
  if (working_set) {
    const WorkingSet& w = *working_set;
    const double kv = sc.model.kv_bytes_per_token();
    out["working_set"] = nlohmann::json(WorkingSetFigures{w.agents, w.agents_per_s, w.mean_lifetime_s, w.mean_final_tokens,
                                                   w.law_tokens * kv, w.measured_mean_tokens * kv, kv});
  }
  // Only with faults, so that a fault-free summary is what it was before faults existed.
  if (!cluster.faults().empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : cluster.faults()) {
      nlohmann::json e = {{"kind", name_of(r.spec.kind)},
                          {"at", r.spec.at},
                          {"started", r.started >= 0 ? nlohmann::json(r.started) : nlohmann::json(nullptr)},
                          {"ended", r.ended >= 0 ? nlohmann::json(r.ended) : nlohmann::json(nullptr)},
                          {"reads_failed", r.reads_failed},
                          {"reads_moved", r.reads_moved},
                          {"writes_failed", r.writes_failed},
                          {"bytes_reread", r.bytes_reread},
                          {"bytes_rewritten", r.bytes_rewritten}};
      if (r.spec.gpu >= 0) e["gpu"] = r.spec.gpu;
      if (loses_engines(r.spec.kind)) {
        e["rounds_restarted"] = r.rounds_restarted;
        e["bytes_lost"] = r.bytes_lost;
        e["writes_lost"] = r.writes_lost;
      }
      if (r.spec.node >= 0) e["node"] = r.spec.node;
      if (has_factor(r.spec.kind)) e["factor"] = r.spec.factor;
      if (r.spec.until >= 0) e["until"] = r.spec.until;
      list.push_back(e);
    }
    out["faults"] = list;
  }
  return out;
}

void write_run_folder(const std::string& dir, const nlohmann::json& summary, RunRecords& records,
                      const Cluster& cluster, const LinkReport& links) {
  // The CSV files first, summary.json last: a folder whose summary.json is there has all of them (readers and
  // resumers take summary.json as the mark of a finished run).
  // Each through a temporary renamed over it (core/config/output_file.hpp): whole or absent.
  // Streamed into the temporaries: requests.csv alone is ~280 bytes per round, which a long run must not hold (its
  // rows went into the temporary as the requests settled).
  records.commit_requests_csv();
  write_stream_atomically(dir + "/waits.csv", [&](std::ostream& out) { cluster.waits().write_csv(out); });
  records.commit_links_csv(links);
  std::ostringstream summary_text;
  summary_text << std::setw(2) << summary << '\n';
  write_text_atomically(dir + "/summary.json", summary_text.str());
}

}  // namespace dualpath
