// The DE-node CNIC through which PE GPU `pe` reaches the DRAM buffer of decode GPU `de`'s node: the decode
// engine's own CNIC (sim.kv_port = "engine"), or the CNIC at the PE GPU's local index on that node ("node": the
// buffer is node DRAM; spreading by PE index keeps the DE CNICs balanced and lets one flow per (PE GPU, DE node)
// carry a stage's KV instead of one per (PE GPU, DE GPU)). A CNIC that a fault took down (cnic-down) carries none:
// its traffic moves to the next CNIC of the node that is up.
#pragma once

#include <cstddef>
#include <vector>

namespace dualpath {

class BufferPorts {
 public:
  BufferPorts(int gpus_per_node, bool per_node_ports, size_t gpus)
      : gpus_per_node_(gpus_per_node), per_node_ports_(per_node_ports), down_(gpus, false) {}

  int port(int de, int pe) const {
    if (!per_node_ports_) return de;
    const int p = (de / gpus_per_node_) * gpus_per_node_ + pe % gpus_per_node_;
    return any_down_ && down_[static_cast<size_t>(p)] ? live_port(p) : p;
  }
  void cnic_down(int gpu) { down_[static_cast<size_t>(gpu)] = true, any_down_ = true; }

 private:
  // The next CNIC of port's node that is up.
  int live_port(int port) const {
    const int node = port / gpus_per_node_, local = port % gpus_per_node_;
    for (int k = 1; k < gpus_per_node_; ++k) {
      const int p = node * gpus_per_node_ + (local + k) % gpus_per_node_;
      if (!down_[static_cast<size_t>(p)]) return p;
    }
    return port;  // every CNIC of the node is down: its engines are all lost, and no request uses its buffer
  }

  int gpus_per_node_;
  bool per_node_ports_;
  std::vector<bool> down_;  // per GPU: its compute NIC failed (cnic-down)
  bool any_down_ = false;
};

}  // namespace dualpath
