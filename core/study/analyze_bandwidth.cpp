#include "core/study/analyze_bandwidth.hpp"

#include <cmath>
#include <stdexcept>

#include "core/config/command_values.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"

namespace dualpath::study {

using namespace dualpath::analysis;

BandwidthAnswer analyze_bandwidth(const BandwidthQuestion& q) {
  BandwidthAnswer a;
  a.basic = q.basic;
  a.topology = load_topology(q.topology);
  const Topology& t = a.topology;
  BandwidthParams& p = a.params;
  p.g = t.gpus_per_node;
  p.B = t.cnic_bw;
  p.s = t.snic_bw / t.cnic_bw;
  p.M = t.dram_bw;
  p.pcie = t.pcie_bw;
  try {
    validate(p);
  } catch (const std::invalid_argument& e) {
    throw InputError(q.topology, e.what());
  }
  if (!q.decode_topology.empty()) {
    a.decode = load_topology(q.decode_topology);
    const Topology& de = *a.decode;
    if (de.gpus_per_node != t.gpus_per_node)
      throw InputError(q.decode_topology, "expected gpus_per_node " + std::to_string(t.gpus_per_node) +
                                              " (the prefill topology's), found " + std::to_string(de.gpus_per_node));
    p.de_s = de.snic_bw / de.cnic_bw, p.de_B = de.cnic_bw, p.de_M = de.dram_bw, p.de_pcie = de.pcie_bw;
  }
  a.de_weight = p.de().snic() / p.pe().snic();
  std::vector<std::pair<int, int>> pds;
  for (const auto& s : q.pds) pds.push_back(parse_pd_ratio(s));
  a.range = bottleneck_free_range(p);
  for (const auto& [P, D] : pds) {
    PdLoads e;
    e.P = P, e.D = D;
    e.in_range = in_range(a.range, P, D);
    e.loads = link_loads(p, P, D, 1, q.basic ? 0 : 1);
    e.first = most_loaded(e.loads);
    e.mix = best_read_mix(p, P, D, !q.basic);
    a.pds.push_back(std::move(e));
  }
  return a;
}

nlohmann::json BandwidthAnswer::to_json() const {
  const BandwidthParams& p = params;
  const BandwidthRange& r = range;
  nlohmann::json j;
  j["params"] = {{"g", p.g}, {"s", p.s}, {"B", p.B}, {"M", p.M}, {"pcie", p.pcie}, {"M_over_Bs", p.M / (p.B * p.s)}};
  if (decode)
    j["params"]["decode"] = {{"topology", decode->name}, {"s", p.de_s}, {"B", p.de_B}, {"M", p.de_M}, {"pcie", p.de_pcie}};
  j["range"] = {{"lower", r.lower}, {"upper", std::isfinite(r.upper) ? nlohmann::json(r.upper) : nlohmann::json()},
                {"empty", r.empty}};
  for (auto l : r.binding_lower) j["range"]["binding_lower"].push_back(link_key(l));
  for (auto l : r.binding_upper) j["range"]["binding_upper"].push_back(link_key(l));
  for (auto l : r.violated_fixed) j["range"]["violated"].push_back(link_key(l));
  for (const auto& x : pds) {
    nlohmann::json e = {{"P", x.P}, {"D", x.D}, {"in_range", x.in_range}};
    for (const auto& l : x.loads) e["loads"][link_key(l.link)] = l.fraction;
    e["first_to_saturate"] = link_key(x.first.link);
    e["max_read_rate_snics"] = x.mix.snics;
    e["best_mix"] = {{"x_pe", x.mix.x_pe}, {"x_de", x.mix.x_de}};
    j["pd"].push_back(e);
  }
  return j;
}

}  // namespace dualpath::study
