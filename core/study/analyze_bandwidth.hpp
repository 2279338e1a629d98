// `analyze bandwidth` as a study (docs/bandwidth-model.md): the §4.2 traffic model of a topology file (g =
// gpus_per_node, B = cnic_bw, s = snic_bw / cnic_bw, M = dram_bw, PCIe from pcie_bw; a decode topology's own for
// mixed hardware), its bottleneck-free P/D range and binding links, and for each P:D the load on every link with
// every SNIC saturated (x_D = 0 for Basic), the link that saturates first and the sustainable read rate. The command
// line prints it as a table or its JSON; Python returns the JSON, the same bytes.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/bandwidth_model.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::study {

struct BandwidthQuestion {
  std::string topology;
  std::string decode_topology;  // the decode nodes' own hardware; "" = the topology's
  std::vector<std::string> pds; // "P:D" each
  bool basic = false;           // PE reads only (x_D = 0)
};

struct PdLoads {
  int P = 0, D = 0;
  bool in_range = false;
  std::vector<analysis::LinkLoad> loads;
  analysis::LinkLoad first;  // the most loaded link
  analysis::ReadMix mix;     // the best read mix and the sustainable read rate in SNICs
};

struct BandwidthAnswer {
  Topology topology;
  std::optional<Topology> decode;
  analysis::BandwidthParams params;
  analysis::BandwidthRange range;
  double de_weight = 1;  // a DE SNIC's share of the reads counts S_D/S prefill SNICs (best_read_mix's unit)
  bool basic = false;
  std::vector<PdLoads> pds;
  nlohmann::json to_json() const;  // `analyze bandwidth --json`
};

// InputError on a bad topology, a decode topology of another GPU count or a bad P:D.
BandwidthAnswer analyze_bandwidth(const BandwidthQuestion& q);

}  // namespace dualpath::study
