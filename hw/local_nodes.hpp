// Single-process mode: every node agent lives in this process and shares one block store (a pacing bucket per
// node) and one transport per traffic class, whose two UCX workers stand for "here" and "the peer".
#pragma once

#include <memory>
#include <vector>

#include "core/config/scenario.hpp"
#include "hw/node_link.hpp"
#include "hw/node_resources.hpp"

namespace dualpath::hw {

class LocalNodes final : public NodeLink {
 public:
  LocalNodes(const Scenario& scenario, const HwOptions& options, EventLoop& loop, NodeAgent::KernelRunner kernels,
             std::string compute_description, NodeAgent::CopyRunner copies = {});
  void read(int node, std::vector<BlockKey> keys, Reply done) override {
    agents_.at(node)->read(std::move(keys), std::move(done));
  }
  void write(int node, std::vector<BlockKey> keys, Reply done) override {
    agents_.at(node)->write(std::move(keys), std::move(done));
  }
  void pull(int node, TrafficClass cls, int src, int dst, uint64_t bytes, Reply done) override {
    agents_.at(node)->pull(cls, src, dst, bytes, std::move(done));
  }
  void compute(int node, int gpu, const ComputeWork& work, Reply done) override {
    agents_.at(node)->compute(gpu, work, std::move(done));
  }
  nlohmann::json report() override;
  // The store and transports finish their in-flight work (whose completions reach the agents) before the agents go.
  ~LocalNodes() override { res_.reset(); }

 private:
  std::unique_ptr<NodeResources> res_;
  std::vector<std::unique_ptr<NodeAgent>> agents_;
  std::string compute_;
};

// One node agent's counters as JSON (shared by both launch modes' reports).
nlohmann::json agent_report(const NodeAgent& agent);

}  // namespace dualpath::hw
