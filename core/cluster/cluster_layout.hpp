// What every stage of the Cluster reads and none changes once the run starts: the node geometry, the KV sizes,
// the lockstep units and the policy's buffer lifecycle. The Cluster fills it at construction.
#pragma once

#include <cstdint>
#include <vector>

namespace dualpath {

struct ClusterLayout {
  int gpus_per_node = 1;
  int n_layers = 1;
  double kv_per_token = 0, kv_per_token_layer = 0;  // KV bytes per token, all layers and one layer
  bool per_node_ports = false;    // sim.kv_port = "node" (BufferPorts)
  bool streamed_buffers = false;  // policy.buffer = "stream": DE room reserved by a request's first forward
  bool hbm_at_handoff = false;    // policy.de_hbm = "handoff": decode HBM allocated once the prompt KV is in
  bool gdr = false;               // topology.storage.gdr: PE-path reads land in the PE GPU's HBM, not a DRAM buffer
  // The lockstep units: a whole EP group when weights are sharded, else each engine on its own (the activity
  // log's `unit` indexes them), and per GPU its unit in pe_units or de_units.
  std::vector<std::vector<int>> pe_units, de_units;
  std::vector<int> unit_of;

  double kv_bytes(int64_t tokens) const { return static_cast<double>(tokens) * kv_per_token; }
  double kv_bytes_layers(int64_t tokens, int layers) const {
    return static_cast<double>(tokens) * kv_per_token_layer * layers;
  }
  int node_of(int gpu) const { return gpu / gpus_per_node; }
  // Nodes a lockstep unit spans (its EP all-to-all crosses the network between them).
  int nodes_spanned(const std::vector<int>& engines) const {
    return static_cast<int>((engines.size() + gpus_per_node - 1) / gpus_per_node);
  }
};

}  // namespace dualpath
