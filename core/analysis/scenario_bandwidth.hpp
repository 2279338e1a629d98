// The §4.2 analysis's parameters of a scenario (core/analysis/bandwidth_model.hpp): g, s, B, M and, when asked for,
// PCIe, from its prefill nodes' topology, and the decode nodes' own where they have their own hardware (issue 65).
// One place, so that plan, sweep and the claims read a mixed cluster alike.
#pragma once

#include "core/analysis/bandwidth_model.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::analysis {

inline BandwidthParams bandwidth_params(const Scenario& sc, bool with_pcie) {
  const Topology& pe = sc.pe_topology();
  BandwidthParams p{pe.gpus_per_node, pe.snic_bw / pe.cnic_bw, pe.cnic_bw, pe.dram_bw, with_pcie ? pe.pcie_bw : 0};
  if (sc.mixed_hardware()) {  // a prefill_topology alone leaves the decode nodes on `topology`: theirs differs too
    const Topology& de = sc.de_topology();
    p.de_s = de.snic_bw / de.cnic_bw, p.de_B = de.cnic_bw, p.de_M = de.dram_bw;
    if (with_pcie) p.de_pcie = de.pcie_bw;
  }
  return p;
}

}  // namespace dualpath::analysis
