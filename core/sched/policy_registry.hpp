// Name -> policy factory. Built-in: dualpath, basic, oracle (sched/policies/paper_policies.cpp), registered by
// sched/policies/builtin_policies.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/sched/policy.hpp"

namespace dualpath {

// Registers a policy under `name` with its default features; returns true (usable in a static initialiser).
bool register_policy(const std::string& name, PolicyFeatures defaults, PolicyFactory factory);
// Creates the policy named in `spec`, with the spec's ablation toggles applied; throws InputError if unknown.
std::unique_ptr<Policy> make_policy(const PolicySpec& spec);
PolicyFeatures effective_features(const PolicySpec& spec);
std::vector<std::string> policy_names();

}  // namespace dualpath
