#include "core/run/fault_impact.hpp"

#include "core/run/summary_sections.hpp"

namespace dualpath {

nlohmann::json fault_impact(const RunSummary& with_faults, const RunSummary& without,
                            const std::string& baseline_folder) {
  nlohmann::json impact = {{"baseline", baseline_folder}};
  auto metric = [&](const char* name, double x, double y) {
    impact[name] = {{"with_faults", x}, {"without", y}, {"change", y != 0 ? x / y - 1 : 0.0}};
  };
  metric("jct_s", with_faults.jct, without.jct);
  metric("ttft_p50_s", with_faults.ttft.p50, without.ttft.p50);
  metric("ttft_p99_s", with_faults.ttft.p99, without.ttft.p99);
  metric("tpot_p50_s", with_faults.tpot.p50, without.tpot.p50);
  metric("slo_both_ok_fraction", with_faults.slo_both_ok, without.slo_both_ok);
  return impact;
}

RunSummary baseline_results(const std::string& folder) { return read_run_file(folder + "/summary.json").results; }

}  // namespace dualpath
