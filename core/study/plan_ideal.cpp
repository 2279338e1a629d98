#include "core/study/plan_ideal.hpp"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "core/study/study_streams.hpp"
#include "core/analysis/bandwidth_model.hpp"

namespace dualpath::study {

double read_bound_aps(const VariantPlan& vp, const analysis::PdSplit& s, double read_per_agent, std::string& link) {
  link.clear();
  if (!vp.reads_from_storage || !(read_per_agent > 0)) return NAN;
  const analysis::ReadMix mix = analysis::best_read_mix(vp.bandwidth, s.P, s.D, vp.dual_path);
  // bytes/s: the mix's prefill SNICs, each delivering what the storage client reads of its line rate
  const double can = mix.snics * vp.bandwidth.pe().snic() * vp.read_efficiency;
  // Every link full at the best mix (inside the §4.2 range: every SNIC of the policy's paths).
  const auto loads = analysis::link_loads(vp.bandwidth, s.P, s.D, mix.x_pe, mix.x_de);
  const double top = analysis::most_loaded(loads).fraction;
  for (const auto& l : loads)
    if (l.fraction >= top - 1e-9) link += (link.empty() ? "" : ", ") + std::string(analysis::link_name(l.link));
  return can / read_per_agent;
}

nlohmann::json ideal_json(const IdealFigures& f) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
  nlohmann::json j = {{"read_bound_aps", num(f.read_bound_aps)}, {"oracle_aps", f.oracle_ok ? num(f.oracle_aps) : nlohmann::json()},
                      {"oracle_lowest_failing_aps", f.oracle_ok ? num(f.oracle_lowest_failing) : nlohmann::json()}};
  if (!f.read_bound_link.empty()) j["read_bound_link"] = f.read_bound_link;
  if (!f.oracle_dir.empty()) j["oracle_dir"] = f.oracle_dir;
  return j;
}

void print_ideal(const VariantPlan& vp) {
  if (!vp.ideal) return;
  const IdealFigures& f = *vp.ideal;
  std::ostringstream m;
  m << std::setprecision(4) << "ideal on " << split_name(vp.splits[f.split]) << ": holds " << vp.outcomes[f.split].value
    << " APS; with free KV loads (oracle) ";
  if (!f.oracle_ok) {
    m << "its search did not finish";
  } else {
    m << "it would hold " << f.oracle_aps;
    if (std::isfinite(f.oracle_lowest_failing)) m << " (fails at " << f.oracle_lowest_failing << ")";
  }
  if (std::isfinite(f.read_bound_aps))
    m << "; the §4.2 read bound caps it at " << f.read_bound_aps << " APS (full first: " << f.read_bound_link << ")"
      << (f.read_bound_aps < vp.outcomes[f.split].value
              ? ": below what it held, so its probes read faster than a steady state can (too short to reach one)"
              : "");
  else
    m << "; no §4.2 read bound (" << vp.policy << " loads no KV through the storage NICs)";
  study_out() << m.str() << "\n";
}

void find_ideal(const CapacityPlanSpec& spec, const std::vector<std::string>& overrides,
                std::vector<VariantPlan>& plans) {
  std::vector<CapacityCandidate> cands;
  std::vector<std::vector<size_t>> owners;  // the variants each Oracle candidate answers for
  // Variants that differ only in their policy have one Oracle (the probes run policy oracle whatever policy.name
  // the variant sets): its search runs once, in the first such variant's folder.
  std::map<std::string, size_t> by_runs;
  for (size_t vi = 0; vi < plans.size(); ++vi) {
    VariantPlan& vp = plans[vi];
    std::optional<size_t> best;
    for (size_t i = 0; i < vp.splits.size(); ++i) {
      const Outcome& o = vp.outcomes[i];
      if (o.ok && std::isfinite(o.value) && o.value > 0 && (!best || o.value > vp.outcomes[*best].value)) best = i;
    }
    if (!best) continue;
    IdealFigures f;
    f.split = *best;
    const analysis::PdSplit& s = vp.splits[*best];
    const Outcome& o = vp.outcomes[*best];
    f.read_bound_aps = read_bound_aps(vp, s, o.read_per_agent, f.read_bound_link);
    vp.ideal = f;
    const std::string name = (vp.variant.label.empty() ? "" : vp.variant.label + " ") + split_name(s) + " (oracle)";
    std::vector<std::string> sets = split_overrides(overrides, vp, s);
    std::string key;
    for (const auto& set : sets)
      if (set.rfind("policy.name=", 0) != 0) key += set + "\n";
    if (const auto it = by_runs.find(key); it != by_runs.end()) {
      owners[it->second].push_back(vi);
      continue;
    }
    by_runs[key] = cands.size();
    // Its own group: the Oracle's search competes with nothing and runs to the resolution.
    cands.push_back({name, vp.folder + "/" + split_name(s) + "/oracle", "oracle", std::move(sets),
                     static_cast<int>(vi), 1});
    owners.push_back({vi});
  }
  if (cands.empty()) return;
  study_log() << "plan: --ideal: the Oracle's capacity on " << cands.size() << " best split(s)\n";
  const auto results = search_capacities(spec, cands);
  for (size_t c = 0; c < results.size(); ++c)
    for (const size_t vi : owners[c]) {
      IdealFigures& f = *plans[vi].ideal;
      f.oracle_ok = results[c].ok;
      f.oracle_aps = results[c].capacity;
      f.oracle_lowest_failing = results[c].lowest_failing ? *results[c].lowest_failing : NAN;
      f.oracle_dir = cands[c].dir;
    }
}

}  // namespace dualpath::study
