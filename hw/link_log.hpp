// Measured link utilisation of a hardware run, written as links.csv in the simulator's format so `dualpath report`
// draws both bodies the same way. Every completed operation adds its bytes to the links it used, spread evenly over
// the time it occupied them: a paced SNIC read or write over the last bytes / rate seconds before it completed
// (the bucket serves one node's operations in order), a transfer over its whole span on the source GPU's CNIC read
// side and the destination GPU's CNIC write side. Utilisation is bytes / (capacity x window), capacities being the
// scenario's (or overlay's) SNIC rate and CNIC bandwidth.
#pragma once

#include <string>
#include <vector>

#include "core/backend/backend.hpp"

namespace dualpath::hw {

class LinkLog {
 public:
  LinkLog(int nodes, int gpus_per_node, double snic_rate, double cnic_bw, double interval);
  void storage(int node, bool read, double start, double end, double bytes);
  void transfer(int src_gpu, int dst_gpu, TrafficClass cls, double start, double end, double bytes);
  // Rows time,duration,link,class,node,gpu,utilisation,model_utilisation,kv_utilisation up to `span` seconds;
  // only windows where a link carried bytes are written (the simulator's sparse convention).
  void write_csv(const std::string& path, double span) const;

 private:
  struct Link {
    std::string name, cls;
    int node, gpu;
    double capacity;
    std::vector<double> model, kv;  // bytes per window
  };
  void add(Link& l, TrafficClass cls, double start, double end, double bytes);
  int nodes_, gpn_;
  double interval_;
  std::vector<Link> links_;  // per node: snic_down, snic_up; then per GPU: cnic_rd, cnic_wr
};

}  // namespace dualpath::hw
