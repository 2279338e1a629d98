// The resources a node agent needs, built the same way for both launch modes: the block store (one SNIC pacing
// bucket per node it serves), a transport per traffic class (KV, model: separate UCX contexts so a fabric can give
// them different service levels), and the emulated memories (each GPU's "HBM" and DRAM-buffer share), registered
// with both transports in global region order (NodeAgent::region).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "hw/block_store.hpp"
#include "hw/hw_options.hpp"
#include "hw/node_agent.hpp"
#include "hw/transport.hpp"

namespace dualpath::hw {

struct NodeResources {
  std::unique_ptr<BlockStore> store;
  std::unique_ptr<Transport> kv, model;
  std::vector<char*> memory;  // 2 regions per GPU served: [HBM, DRAM]
  size_t block_bytes = 0;
  double snic_rate = 0;
  ~NodeResources();
  // storage engine, transports, fallback, storage stats
  nlohmann::json describe() const;
};

// Bytes of one Full Block file payload (KV of block_tokens tokens, all layers).
size_t block_bytes_of(const Scenario& scenario);

// Serves GPUs [first_gpu, first_gpu + gpus) and `buckets` SNIC buckets. In peer mode the transports are
// multi-process (call export_peer/connect_peers) and must be UCX: a memcpy stand-in cannot reach another process.
std::unique_ptr<NodeResources> make_node_resources(const Scenario& scenario, const HwOptions& options, int first_gpu,
                                                   int gpus, int buckets, bool peer_mode);

// A node agent's options from the run's (the faults an agent injects itself are passed on).
NodeAgentOptions agent_options(const HwOptions& options);

// Removes old block files from the storage directory (creating it): this run's files must be the only ones.
void clear_storage_dir(const std::string& dir);

}  // namespace dualpath::hw
