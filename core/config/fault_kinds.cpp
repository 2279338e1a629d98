#include "core/config/fault_kinds.hpp"

#include <iterator>
#include <stdexcept>

namespace dualpath {

namespace {

constexpr bool builtin_rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kBuiltinFaultKinds); ++i)
    if (static_cast<size_t>(kBuiltinFaultKinds[i].value) != i) return false;
  return true;
}
static_assert(builtin_rows_in_enum_order(), "kBuiltinFaultKinds: one row per FaultKind, in enum order");

// The table, indexed by FaultKind's value: the built-in rows first, so their values are their enumerators.
std::vector<FaultKindRow>& table() {
  static std::vector<FaultKindRow> rows = [] {
    std::vector<FaultKindRow> out;
    for (const auto& b : kBuiltinFaultKinds) out.push_back({b.value, b.name, b.target, b.effect});
    return out;
  }();
  return rows;
}

}  // namespace

const std::vector<FaultKindRow>& fault_kinds() { return table(); }

FaultKind register_fault_kind(std::string name, FaultTarget target, FaultEffect effect) {
  if (name.empty()) throw std::invalid_argument("register_fault_kind: a fault kind needs a name");
  if (find_fault_kind(name)) throw std::invalid_argument("register_fault_kind: a fault kind \"" + name + "\" exists");
  auto& rows = table();
  // FaultKind's underlying type is uint8_t: every value up to 255 is a valid FaultKind.
  if (rows.size() > 255) throw std::length_error("register_fault_kind: at most 256 fault kinds");
  const auto value = static_cast<FaultKind>(rows.size());
  rows.push_back({value, std::move(name), target, effect});
  return value;
}

FaultEffect register_fault_effect() {
  static int next = kBuiltinFaultEffects;
  if (next > 255) throw std::length_error("register_fault_effect: at most 256 fault effects");
  return static_cast<FaultEffect>(next++);
}

const FaultKindRow& fault_row(FaultKind k) {
  const auto i = static_cast<size_t>(k);
  if (i >= table().size()) throw std::out_of_range("fault kinds: no row for kind " + std::to_string(i));
  return table()[i];
}

const FaultKindRow* find_fault_kind(std::string_view name) {
  for (const auto& r : table())
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> fault_kind_names() {
  std::vector<std::string> out;
  for (const auto& r : table()) out.push_back(r.name);
  return out;
}

}  // namespace dualpath
