#include "core/sched/policy_registry.hpp"

#include <map>

#include "core/config/input_error.hpp"
#include "core/config/near_miss.hpp"
#include "core/mutation/mutant.hpp"
#include "core/sched/policies/builtin_policies.hpp"

namespace dualpath {

namespace {
struct Entry {
  PolicyFeatures defaults;
  PolicyFactory factory;
};
std::map<std::string, Entry>& table() {
  static std::map<std::string, Entry> t;
  return t;
}
const std::map<std::string, Entry>& registry() {
  static const bool once = [] {
    register_builtin_policies();
    return true;
  }();
  (void)once;
  return table();
}
}  // namespace

bool register_policy(const std::string& name, PolicyFeatures defaults, PolicyFactory factory) {
  table().insert_or_assign(name, Entry{defaults, std::move(factory)});
  return true;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& [n, e] : registry()) names.push_back(n);
  return names;
}

PolicyFeatures effective_features(const PolicySpec& spec) {
  const auto& reg = registry();
  auto it = reg.find(spec.name);
  if (it == reg.end()) {
    std::string known;
    for (const auto& [n, e] : reg) known += (known.empty() ? "" : ", ") + n;
    throw InputError("policy.name", "unknown policy '" + spec.name + "' (known: " + known + ")" +
                                        did_you_mean(spec.name, policy_names()));
  }
  PolicyFeatures f = it->second.defaults;
  if (spec.layerwise) f.layerwise = *spec.layerwise;
  if (spec.dual_path) f.dual_path = *spec.dual_path;
  if (spec.scheduler) f.scheduler = *spec.scheduler;
  if (mutant("no_layerwise") && f.dual_path) f.layerwise = false;
  if (f.dram_pool && f.dual_path)
    throw InputError("policy.dual_path", "policy '" + spec.name + "' reads through the PE node only (its DRAM pool "
                                         "serves the PE, docs/dram-pool.md); expected false or unset");
  if (f.de_resident && f.dual_path)
    throw InputError("policy.dual_path", "policy '" + spec.name + "' reads a hit its decode engine does not hold "
                                         "through the PE node (docs/baselines.md); expected false or unset");
  if (f.de_resident && f.scheduler)
    throw InputError("policy.scheduler", "policy '" + spec.name + "' sends a round to the decode engine that holds "
                                         "its prefix, which Algorithm 1 does not know of; expected false or unset");
  if (f.de_resident && spec.de_hbm != DeHbmAt::Handoff)
    throw InputError("policy.de_hbm", "policy '" + spec.name + "' takes decode HBM at the handoff (a kept prefix "
                                      "is part of it); expected \"handoff\"");
  if (f.de_resident && spec.buffer != BufferLifecycle::Stream)
    throw InputError("policy.buffer", "policy '" + spec.name + "' reserves the DE buffer at the first forward (a "
                                      "pulled hit takes none); expected \"stream\"");
  if (f.de_prefetch && f.dual_path)
    throw InputError("policy.dual_path", "policy '" + spec.name + "' reads through the PE node (its DE node's "
                                         "prefetch is the second read, docs/baselines.md); expected false or unset");
  return f;
}

std::unique_ptr<Policy> make_policy(const PolicySpec& spec) {
  const PolicyFeatures f = effective_features(spec);
  return registry().at(spec.name).factory(f);
}

}  // namespace dualpath
