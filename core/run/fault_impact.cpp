#include "core/run/fault_impact.hpp"

#include <fstream>
#include <stdexcept>

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

RunSummary baseline_results(const std::string& folder) {
  const std::string path = folder + "/summary.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the fault baseline's " + path);
  try {
    return run_summary_from_json(nlohmann::json::parse(in).at("results"));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("the fault baseline's " + path + " is not a run summary: " + e.what());
  }
}

}  // namespace dualpath
