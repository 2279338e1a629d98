#include "cli/plan_band.hpp"

#include <fstream>
#include <iostream>

#include "cli/band.hpp"
#include "core/analysis/capacity_search.hpp"
#include "core/config/input_error.hpp"

namespace dualpath::cli {

// --band: the plan once per calibration (OUT/<calibration>/plan.json), then its answer as a range: the fewest nodes
// for --target-aps, else the recommended split's figure, with the calibration, split and binding resource at each end.
void plan_band(const std::string& band, const std::string& out, std::optional<double> target_aps, bool capacity,
               const Scenario& base) {
  const auto members = run_band("plan", band, out);
  std::vector<std::pair<std::string, double>> values;
  nlohmann::json at = nlohmann::json::object();
  for (const auto& m : members) {
    std::ifstream in(m.out + "/plan.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    if (target_aps) {  // the fewest nodes over the variants that hold the load
      std::optional<int> fewest;
      std::string policy;
      for (const auto& v : j.at("variants"))
        if (v.at("nodes").is_number() && (!fewest || v.at("nodes").get<int>() < *fewest))
          fewest = v.at("nodes").get<int>(), policy = v.value("policy", std::string());
      at[m.name] = {{"nodes", fewest ? nlohmann::json(*fewest) : nlohmann::json()}, {"policy", policy}};
      if (fewest) values.emplace_back(m.name, *fewest);
    } else if (j.contains("recommendation")) {
      const auto& r = j.at("recommendation");
      at[m.name] = {{"split", r.value("split", std::string())}, {"value", r.at("value")},
                    {"binds", r.value("binds", std::string())}};
      values.emplace_back(m.name, r.at("value").get<double>());
    }
  }
  std::cout << "plan band of " << base.name << " over " << members.size() << " calibrations (plans in " << out
            << "/<calibration>/):\n";
  for (const auto& m : members) std::cout << "  " << m.name << ": " << m.label << "\n";
  nlohmann::json figures = {{"question", target_aps ? "target_aps" : "split"}, {"answers", at}};
  if (!values.empty()) {
    const BandRange r = band_range(values);
    figures["range"] = r.to_json();
    const std::string what = target_aps ? "nodes holding " + analysis::load_text(*target_aps) + " APS"
                                          : std::string(capacity ? "APS" : "s JCT") + " of the best split";
    std::cout << "  " << range_text(r, target_aps ? 0 : 3, " " + what) << "\n";
  }
  for (const auto& m : members) {
    std::cout << "  " << m.name << ": ";
    if (!at.contains(m.name)) std::cout << "no answer (see " << m.out << "/plan.json)";
    else if (target_aps) std::cout << (at[m.name]["nodes"].is_null() ? std::string("no node count up to --max-nodes holds it")
                                                                         : at[m.name]["nodes"].dump() + " nodes (" +
                                                                               at[m.name]["policy"].get<std::string>() + ")");
    else std::cout << at[m.name]["split"].get<std::string>() << ", binds " << at[m.name]["binds"].get<std::string>();
    std::cout << "\n";
  }
  write_band_json(out, members, figures);
  std::cout << "band: " << out << "/band.json\n";
}

}  // namespace dualpath::cli
