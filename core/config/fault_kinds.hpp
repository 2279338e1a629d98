// Every fault kind (docs/faults.md) as one row: the name scenario files use, what it names, and what it does while
// it is active. The loader (faults.cpp), the engine (core/cluster/cluster_faults.cpp), summary.json and the
// timeline read these rows, not kind names, so a kind whose effect exists already is one enum value and one row, both
// here (cli.fault_kinds then checks that scenarios/schema.json and docs/configuration.md list its name). A new
// effect is a FaultEffect value, its case in Cluster::fault_begins / fault_ends (the compiler lists every switch
// that misses it) and, if it changes links, a Backend call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace dualpath {

// faults[].kind (docs/faults.md): one value per row of kFaultKinds below.
enum class FaultKind : uint8_t { SnicDown, SnicDegrade, StorageDegrade, NodeDown, CnicDown };

// What a fault names: one node, one GPU of a node (`node` and `gpu`), or the whole storage cluster (neither).
enum class FaultTarget : uint8_t { Node, Gpu, Storage };

// What a fault does while it is active.
enum class FaultEffect : uint8_t {
  SnicDown,      // the node's storage NIC carries nothing: I/O on it fails, reads go elsewhere or wait
  ScaleSnic,     // the node's storage NIC runs at `factor` x its bandwidth
  ScaleStorage,  // every storage server's NIC and SSDs run at `factor` x their bandwidth
  LoseNode,      // the node is lost with its engines, memory and writes in flight, for the rest of the run
  LoseGpu,       // the GPU's compute NIC fails: its engine (with its lockstep unit) is lost for the rest of the run
};

struct FaultKindRow {
  FaultKind value;
  const char* name;
  FaultTarget target;
  FaultEffect effect;
};

// In FaultKind order (checked below); messages list the names in this order.
inline constexpr FaultKindRow kFaultKinds[] = {
    {FaultKind::SnicDown, "snic-down", FaultTarget::Node, FaultEffect::SnicDown},
    {FaultKind::SnicDegrade, "snic-degrade", FaultTarget::Node, FaultEffect::ScaleSnic},
    {FaultKind::StorageDegrade, "storage-degrade", FaultTarget::Storage, FaultEffect::ScaleStorage},
    {FaultKind::NodeDown, "node-down", FaultTarget::Node, FaultEffect::LoseNode},
    {FaultKind::CnicDown, "cnic-down", FaultTarget::Gpu, FaultEffect::LoseGpu},
};

constexpr bool fault_rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kFaultKinds); ++i)
    if (static_cast<size_t>(kFaultKinds[i].value) != i) return false;
  return true;
}
static_assert(fault_rows_in_enum_order(), "kFaultKinds: one row per FaultKind, in enum order");

inline const FaultKindRow& fault_row(FaultKind k) { return kFaultKinds[static_cast<size_t>(k)]; }
inline const char* name_of(FaultKind k) { return fault_row(k).name; }
inline FaultEffect effect_of(FaultKind k) { return fault_row(k).effect; }

// The degrades keep a fraction of bandwidth (`factor`); the others take none.
inline bool has_factor(FaultKind k) {
  return effect_of(k) == FaultEffect::ScaleSnic || effect_of(k) == FaultEffect::ScaleStorage;
}
// Lost for the rest of the run: such a fault takes no `until`.
inline bool loses_engines(FaultKind k) {
  return effect_of(k) == FaultEffect::LoseNode || effect_of(k) == FaultEffect::LoseGpu;
}
// The node's storage NIC carries nothing while the fault is active.
inline bool holds_snic_down(FaultKind k) {
  return effect_of(k) == FaultEffect::SnicDown || effect_of(k) == FaultEffect::LoseNode;
}

}  // namespace dualpath
