// The effect table (fault_handler.hpp): each fault effect's handler, the built-in ones one line each, and the arming
// of a scenario's faults.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cluster/faults/fault_handler.hpp"
#include "core/config/input_error.hpp"

namespace dualpath {

// The built-in handlers (their own files).
std::unique_ptr<FaultHandler> make_snic_down_handler();
std::unique_ptr<FaultHandler> make_scale_bandwidth_handler();
std::unique_ptr<FaultHandler> make_node_down_handler();
std::unique_ptr<FaultHandler> make_cnic_down_handler();

namespace {

std::vector<std::unique_ptr<FaultHandler>>& table() {
  // Built in on first use: a static library drops an object file nothing references, so the handlers are made
  // through these calls rather than registered by static initialisers in their own files.
  static std::vector<std::unique_ptr<FaultHandler>> t = [] {
    std::vector<std::unique_ptr<FaultHandler>> out(kBuiltinFaultEffects);
    out[static_cast<size_t>(FaultEffect::SnicDown)] = make_snic_down_handler();
    out[static_cast<size_t>(FaultEffect::ScaleSnic)] = make_scale_bandwidth_handler();
    out[static_cast<size_t>(FaultEffect::ScaleStorage)] = make_scale_bandwidth_handler();
    out[static_cast<size_t>(FaultEffect::LoseNode)] = make_node_down_handler();
    out[static_cast<size_t>(FaultEffect::LoseGpu)] = make_cnic_down_handler();
    return out;
  }();
  return t;
}

}  // namespace

FaultHandler& fault_handler(FaultEffect effect) {
  const auto i = static_cast<size_t>(effect);
  if (i >= table().size() || !table()[i])
    throw std::out_of_range("fault effects: no handler for effect " + std::to_string(i));
  return *table()[i];
}

void register_fault_handler(FaultEffect effect, std::unique_ptr<FaultHandler> handler) {
  const auto i = static_cast<size_t>(effect);
  if (i >= table().size()) table().resize(i + 1);
  table()[i] = std::move(handler);
}

void arm_faults(FaultScope& s) {
  s.cluster.faults.reset(s.cluster.view.engines.size());
  const auto& faults = s.cluster.scenario.faults;
  if (faults.empty()) return;
  if (!s.cluster.be.can_inject_faults())
    throw InputError(s.cluster.scenario.source_file + ": /faults",
                     "this backend cannot inject scenario faults (they are simulated; `dualpath-hw run --fault` "
                     "injects the hardware body's own)");
  s.cluster.be.track_storage_io();
  for (size_t i = 0; i < faults.size(); ++i) {
    if (effect_of(faults[i].kind) == FaultEffect::LoseNode) s.persist.track_lost_writes();
    s.cluster.faults.add(faults[i]);
    const FaultSpec& f = faults[i];
    FaultScope* scope = &s;
    s.cluster.be.timer(f.at, [scope, i] {
      FaultRecord& rec = scope->cluster.faults[i];
      rec.started = scope->cluster.be.now();
      fault_handler(effect_of(rec.spec.kind)).begins(*scope, i);
    });
    if (f.until >= 0)
      s.cluster.be.timer(f.until, [scope, i] {
        FaultRecord& rec = scope->cluster.faults[i];
        if (rec.started < 0) return;  // cannot happen (until > at), kept for safety
        rec.ended = scope->cluster.be.now();
        fault_handler(effect_of(rec.spec.kind)).ends(*scope, i);
      });
  }
}

}  // namespace dualpath
