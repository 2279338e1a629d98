// Every fault kind (docs/faults.md) as one row: the name scenario files use, what it names, and what it does while
// it is active. The loader (faults.cpp), the fault handlers (core/cluster/faults/), summary.json and the
// timeline read these rows, not kind names. A built-in kind whose effect exists already is one enum value and one
// row of kBuiltinFaultKinds, both here (cli.documented_values then checks that scenarios/schema.json and
// docs/configuration.md list its name); a kind added from outside the tree is one register_fault_kind call
// (tests/sim/fault_kind_extension_test.cpp tries it). A new effect is a value from register_fault_effect (or a
// FaultEffect enumerator and its rules in faults.cpp's loader), its handler in core/cluster/faults/ registered in the
// effect table and, if it changes links, a Backend call (tests/core/fault_effect_extension_test.cpp tries one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dualpath {

// faults[].kind (docs/faults.md): the built-in kinds, one per row of kBuiltinFaultKinds below; a kind registered at
// run time (register_fault_kind) takes the values after the last.
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
  // Effects registered since (register_fault_effect) take the values after the last built-in one.
};
inline constexpr int kBuiltinFaultEffects = static_cast<int>(FaultEffect::LoseGpu) + 1;

struct FaultKindRow {
  FaultKind value;
  std::string name;
  FaultTarget target;
  FaultEffect effect;
};

// The built-in kinds, in FaultKind order (checked in fault_kinds.cpp); messages list the names in this order.
struct BuiltinFaultKind {
  FaultKind value;
  const char* name;
  FaultTarget target;
  FaultEffect effect;
};
inline constexpr BuiltinFaultKind kBuiltinFaultKinds[] = {
    {FaultKind::SnicDown, "snic-down", FaultTarget::Node, FaultEffect::SnicDown},
    {FaultKind::SnicDegrade, "snic-degrade", FaultTarget::Node, FaultEffect::ScaleSnic},
    {FaultKind::StorageDegrade, "storage-degrade", FaultTarget::Storage, FaultEffect::ScaleStorage},
    {FaultKind::NodeDown, "node-down", FaultTarget::Node, FaultEffect::LoseNode},
    {FaultKind::CnicDown, "cnic-down", FaultTarget::Gpu, FaultEffect::LoseGpu},
};

// Every kind a scenario may name: the built-in rows, then those registered since, in registration order.
const std::vector<FaultKindRow>& fault_kinds();
// Adds a kind with an effect that exists (docs/architecture.md "How to add a fault kind") and returns its value, the
// next after the last row's. std::invalid_argument when a kind has that name already. Not thread-safe: register
// before runs start (at static initialisation, as policies and KV sources do).
FaultKind register_fault_kind(std::string name, FaultTarget target, FaultEffect effect);
// A new effect, the next value after the last (docs/architecture.md "How to add a fault effect"; its handler goes in
// core/cluster/faults/, registered with register_fault_handler). The loader reads its kinds' node or gpu, `at` and
// `until`, and no `factor`. std::length_error past 256 effects. Not thread-safe: register before runs start.
FaultEffect register_fault_effect();
// The row of a kind (std::out_of_range for a value no row has) and the kind named `name` (nullptr when none).
const FaultKindRow& fault_row(FaultKind k);
const FaultKindRow* find_fault_kind(std::string_view name);
// Every kind's name, in row order.
std::vector<std::string> fault_kind_names();

inline const std::string& name_of(FaultKind k) { return fault_row(k).name; }
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
