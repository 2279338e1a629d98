// How the hardware backend (the scheduler side) reaches the node agents that own the resources: in this process
// (LocalNodes, single-process mode) or over MPI in other processes (MpiNodes). Replies run on the scheduler's loop
// thread; an operation begun here keeps the loop running until its reply arrives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/node_agent.hpp"

namespace dualpath::hw {

class NodeLink {
 public:
  using Reply = NodeAgent::Reply;
  virtual ~NodeLink() = default;
  virtual void read(int node, std::vector<BlockKey> keys, Reply done) = 0;
  virtual void write(int node, std::vector<BlockKey> keys, Reply done) = 0;
  // Executed by `node`, which owns dst_region: a receiver-initiated pull.
  virtual void pull(int node, TrafficClass cls, int src_region, int dst_region, uint64_t bytes, Reply done) = 0;
  virtual void compute(int node, int gpu, const ComputeWork& work, Reply done) = 0;
  // After the run: what moved the bytes and what the node agents counted, for summary.json's "hw" object:
  // mode, compute, storage_engine, kv_transport, model_transport, transport_fallback, storage {...}, nodes [...].
  virtual nlohmann::json report() = 0;
};

}  // namespace dualpath::hw
