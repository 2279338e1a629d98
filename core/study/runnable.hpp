// The checks a study (and `check`, `run`) makes on a loaded scenario before it runs anything, so that a setting every
// run would refuse is exit 2 before any work, not a failed probe.
#pragma once

#include <string>

#include "core/config/input_error.hpp"
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/study/probe_memory.hpp"
#include "core/workload/agents.hpp"

namespace dualpath::study {

// Policy `name` under the scenario's policy settings: an unknown name (listing the known ones) or a setting the
// policy refuses fails with InputError, located where the user gave it: `where` for the name (the scenario's
// /policy/name or a --policy option), else the scenario file and the key effective_features names.
inline void check_policy(const Scenario& sc, const std::string& scenario_path, const std::string& name,
                         const std::string& where) {
  PolicySpec spec = sc.policy;
  spec.name = name;
  try {
    effective_features(spec);
  } catch (const InputError& e) {
    const std::string what = e.what();  // "policy.name: ...", "policy.dual_path: ..."
    const std::string key = what.substr(0, what.find(": "));
    const std::string at = key == "policy.name" ? where : scenario_path + ": /" + key.substr(0, key.find('.')) + "/" +
                                                              key.substr(key.find('.') + 1);
    throw InputError(at, what.substr(what.find(": ") + 2));
  }
}

// The features of policy `name` under the policy settings `from`; an unknown name or a setting it refuses is an
// InputError located at `where` (the option that named it).
inline PolicyFeatures features_at(const PolicySpec& from, const std::string& name, const std::string& where) {
  PolicySpec spec = from;
  spec.name = name;
  try {
    return effective_features(spec);
  } catch (const InputError& e) {
    const std::string what = e.what();
    throw InputError(where, what.substr(what.find(": ") + 2));
  }
}

// Every rule `run` applies when it builds the cluster and its agents, checked without simulating: the step profile
// has the scenario's group sizes, the weights fit, the policy exists and takes the settings, the trace parses and its
// agents can be made (max_len fits every first round, aps = 0 has arrival times). `check` prints the configuration
// after it; capacity and plan run it once before any probe.
inline void check_runnable(const Scenario& sc, const std::string& scenario_path) {
  check_step_profile(sc);
  check_weights_fit(sc);
  check_policy(sc, scenario_path, sc.policy.name, scenario_path + ": /policy/name");
  const Trace trace = load_workload_trace(sc.workload, "");  // the loader resolved workload.file
  ProbeMemory(trace).check_scenario(sc, scenario_path);      // before the agents are made: they may not fit
  make_agents(trace, sc.workload);
}

}  // namespace dualpath::study
