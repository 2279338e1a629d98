#include "hw/local_nodes.hpp"

namespace dualpath::hw {

nlohmann::json agent_report(const NodeAgent& a) {
  const auto& s = a.stats();
  return {{"node", a.node()},
          {"reads", s.reads},
          {"writes", s.writes},
          {"pulls", s.pulls},
          {"computes", s.computes},
          {"blocks_read", s.blocks_read},
          {"blocks_written", s.blocks_written},
          {"pulled_bytes", s.pulled_bytes},
          {"gpu_copies", s.gpu_copies},
          {"gpu_copy_seconds", s.gpu_copy_seconds},
          {"emulated_compute_seconds", s.emulated_compute_seconds},
          {"measured_compute_seconds", s.measured_compute_seconds},
          {"predicted_compute_seconds", s.predicted_compute_seconds}};
}

LocalNodes::LocalNodes(const Scenario& sc, const HwOptions& opt, EventLoop& loop, NodeAgent::KernelRunner kernels,
                       std::string compute_description, NodeAgent::CopyRunner copies)
    : compute_(std::move(compute_description)) {
  const int nodes = sc.deployment.prefill_nodes + sc.deployment.decode_nodes;
  res_ = make_node_resources(sc, opt, 0, nodes * sc.topology.gpus_per_node, nodes, false);
  const NodeAgentOptions ao = agent_options(opt);
  for (int n = 0; n < nodes; ++n) {
    agents_.push_back(
        std::make_unique<NodeAgent>(n, loop, *res_->store, n, *res_->kv, *res_->model, ao, kernels, copies));
  }
}

nlohmann::json LocalNodes::report() {
  nlohmann::json j = res_->describe();
  j["mode"] = "single process (threads)";
  j["compute"] = compute_;
  j["compute_real"] = !agents_.empty() && agents_.front()->real_compute();
  j["nodes"] = nlohmann::json::array();
  for (const auto& a : agents_) j["nodes"].push_back(agent_report(*a));
  return j;
}

}  // namespace dualpath::hw
