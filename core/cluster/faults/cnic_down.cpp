// cnic-down (FaultEffect::LoseGpu): one GPU's compute NIC fails. Its engine (with its lockstep unit) is lost, since
// it can neither take KV nor join its group's all-to-all; the node, its DRAM buffer, SNIC and other engines keep
// serving, and the DRAM-buffer traffic that sim.kv_port = "node" spreads over the node's CNICs moves off this one
// (BufferPorts). Every round with an attempt on a lost engine restarts (lost_engines.cpp).
#include "core/cluster/faults/lost_engines.hpp"

namespace dualpath {

namespace {

class CnicDown final : public FaultHandler {
 public:
  void begins(FaultScope& s, size_t i) override {
    const FaultSpec& spec = s.cluster.faults[i].spec;
    const int gpu = spec.node * s.cluster.layout.gpus_per_node + spec.gpu;
    lose_engines(s, i, [gpu](int g) { return g == gpu; });
    s.cluster.ports.cnic_down(gpu);
    restart_lost_rounds(s, i);
  }
  void ends(FaultScope&, size_t) override {}  // lost for the rest of the run: the loader refuses an `until`
};

}  // namespace

std::unique_ptr<FaultHandler> make_cnic_down_handler() { return std::make_unique<CnicDown>(); }

}  // namespace dualpath
