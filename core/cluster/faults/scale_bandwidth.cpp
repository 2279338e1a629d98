// snic-degrade and storage-degrade (FaultEffect::ScaleSnic, ScaleStorage): while active, a node's storage NIC or the
// whole storage cluster runs at `factor` x its bandwidth. The backend rescales the links; the stages see only
// slower reads and writes.
#include "core/cluster/faults/fault_handler.hpp"

namespace dualpath {

namespace {

class ScaleBandwidth final : public FaultHandler {
 public:
  void begins(FaultScope& s, size_t) override { apply_scales(s); }
  void ends(FaultScope& s, size_t) override { apply_scales(s); }

 private:
  // The bandwidth factor of every SNIC and of the storage cluster: the product of the degrades active now.
  static void apply_scales(FaultScope& s) {
    std::vector<double> snic(s.cluster.view.nodes.size(), 1.0);
    double storage = 1.0;
    for (const FaultRecord& r : s.cluster.faults.records()) {
      if (r.started < 0 || r.ended >= 0) continue;
      if (effect_of(r.spec.kind) == FaultEffect::ScaleSnic) snic[static_cast<size_t>(r.spec.node)] *= r.spec.factor;
      if (effect_of(r.spec.kind) == FaultEffect::ScaleStorage) storage *= r.spec.factor;
    }
    for (size_t n = 0; n < snic.size(); ++n) s.cluster.be.scale_snic(static_cast<int>(n), snic[n]);
    s.cluster.be.scale_storage(storage);
  }
};

}  // namespace

std::unique_ptr<FaultHandler> make_scale_bandwidth_handler() { return std::make_unique<ScaleBandwidth>(); }

}  // namespace dualpath
