// What the Cluster's phases ask of the Cluster itself, which owns the agents' rounds, the sink of settled requests,
// the online stop rule and the faults (cluster.cpp, cluster_faults.cpp): the one narrow way back from a phase.
#pragma once

#include <cstddef>

#include "core/cluster/fault_record.hpp"
#include "core/vocab/request.hpp"

namespace dualpath {

class ClusterHooks {
 public:
  // A round's last token came (its engine has given back what it held): the agent's next round follows.
  virtual void round_done(Request& r) = 0;
  // Requests may have settled (a round ended, a handoff finished): they go to the sink in id order.
  virtual void hand_over_settled() = 0;
  // A request's first token is out: the stop rule (workload.stop = "slo") sees its TTFT.
  virtual void first_token(const Request& r) = 0;

  // Faults: whether the scenario has any, the active snic-down fault holding `node`'s SNIC down (-1: it is up),
  // a fault's record, a node whose SNIC the request's read needs and is down (-1: none), and the reroute of a read
  // whose SNIC is down (elsewhere, or it waits).
  virtual bool has_faults() const = 0;
  virtual int down_fault(int node) const = 0;
  virtual FaultRecord& fault(size_t i) = 0;
  virtual int read_path_down(const Request& r) const = 0;
  virtual void reroute_read(Request& r, size_t fault) = 0;

 protected:
  ~ClusterHooks() = default;
};

}  // namespace dualpath
