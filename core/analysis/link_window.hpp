// Steady-state link utilisation from a run's links.csv, over a time window.
//
// links.csv (sim/run_scenario.cpp) has sparse rows time,duration,link,class,node,gpu,utilisation,... per link and
// sampling interval; a link or interval without a row carried nothing. window_utilisation() integrates each
// row's utilisation over its overlap with [t0, t1] and averages over the window and over every link of a kind on
// one side (PE nodes 0..P-1, DE nodes P..P+D-1), counting links that never appear as idle. Kinds:
// snic_down, snic_up, dram (one per node), cnic_rd, cnic_wr, pcie_h2d, pcie_d2h (one per GPU).
#pragma once

#include <istream>
#include <map>
#include <string>
#include <vector>

namespace dualpath::analysis {

struct SideUtil {
  double mean = 0;  // over the side's links of this kind
  double min = 0;   // least busy link
  double max = 0;   // busiest link
};

struct WindowUtil {
  double t0 = 0, t1 = 0;     // the window
  double end_time = 0;       // end of the last interval in the file
  // key: "pe.cnic_wr", "de.dram", ... ; column: utilisation (all traffic) or kv_utilisation.
  std::map<std::string, SideUtil> util;
  std::map<std::string, SideUtil> kv_util;
  double get(const std::string& key) const;  // mean, 0 when absent
};

// The end of the last interval in links.csv (0 for an empty file). Throws std::runtime_error on a malformed file.
double links_end_time(std::istream& csv);

// Throws std::runtime_error on a malformed file or an empty window.
WindowUtil window_utilisation(std::istream& csv, int prefill_nodes, int decode_nodes, int gpus_per_node, double t0,
                              double t1);

}  // namespace dualpath::analysis
