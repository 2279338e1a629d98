// node-down (FaultEffect::LoseNode): a node is lost at `at` with everything on it, for the rest of the run:
//  - its engines, and every engine that steps in lockstep with one of them (an EP group that spans the node: the
//    group cannot run a layer without it). Lost engines take no request again; their forwards and decode chunks in
//    flight are dropped;
//  - its DRAM buffer and HBM: the KV they held;
//  - its SNIC (storage I/O in flight on it fails), and the persistence writes it had in flight or not yet started:
//    their claimed blocks are unclaimed, so whoever computes those blocks next writes them.
// Every round with an attempt on a lost engine restarts (lost_engines.cpp).
#include "core/cluster/faults/lost_engines.hpp"

namespace dualpath {

namespace {

class NodeDown final : public FaultHandler {
 public:
  void begins(FaultScope& s, size_t i) override {
    FaultRecord& rec = s.cluster.faults[i];
    const int node = rec.spec.node;
    lose_engines(s, i, [&](int gpu) { return s.cluster.layout.node_of(gpu) == node; });
    // Its SNIC: storage I/O in flight fails (the failure callbacks run next, from the event loop, and find their
    // requests lost) and its writes in flight are undone now, so that no block stays claimed by a write that will
    // never land.
    s.cluster.view.nodes[static_cast<size_t>(node)].snic_up = false;
    s.cluster.be.fail_storage_io(node, "node " + std::to_string(node) + " is down (fault " + std::to_string(i) + ")");
    s.persist.on_node_lost(node, rec);
    restart_lost_rounds(s, i);
  }
  void ends(FaultScope&, size_t) override {}  // lost for the rest of the run: the loader refuses an `until`
};

}  // namespace

std::unique_ptr<FaultHandler> make_node_down_handler() { return std::make_unique<NodeDown>(); }

}  // namespace dualpath
