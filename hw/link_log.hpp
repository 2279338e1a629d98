// Measured link utilisation of a hardware run, as the same LinkReport the simulator produces (core/run/), so
// links.csv and summary.json's "links" are written by the same code and `dualpath report` draws both bodies the
// same way. Every completed operation adds its bytes to the links it used, spread evenly over
// the time it occupied them: a paced SNIC read or write over the last bytes / rate seconds before it completed
// (the bucket serves one node's operations in order), a transfer over its whole span on the source GPU's CNIC read
// side and the destination GPU's CNIC write side. Utilisation is bytes / (capacity x window), capacities being the
// scenario's (or overlay's) SNIC rate and CNIC bandwidth.
#pragma once

#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/run/link_report.hpp"

namespace dualpath::hw {

class LinkLog {
 public:
  LinkLog(int nodes, int gpus_per_node, double snic_rate, double cnic_bw, double interval);
  void storage(int node, bool read, double start, double end, double bytes);
  void transfer(int src_gpu, int dst_gpu, TrafficClass cls, double start, double end, double bytes);
  // Per-link totals over the run and samples of every window up to `span` seconds in which a link carried bytes
  // (the simulator's sparse convention); mean utilisation = bytes / (capacity x span).
  LinkReport report(double span) const;

 private:
  struct Link {
    LinkInfo info;
    std::vector<double> model, kv;  // bytes per window
    double paced_until = 0;         // storage links: where the last operation's bytes end (LinkLog::storage)
  };
  void add(Link& l, TrafficClass cls, double start, double end, double bytes);
  int nodes_;
  double interval_;
  std::vector<Link> links_;  // per node: snic_down, snic_up; then per GPU: cnic_rd, cnic_wr
};

}  // namespace dualpath::hw
