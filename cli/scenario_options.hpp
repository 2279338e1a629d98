// The options every command that loads a scenario takes: --set overrides and --overlay files (applied in that
// order by load_scenario: overlays first, then --set). One definition so their syntax and help agree everywhere.
// Also the policy check every command that runs or validates a scenario makes before it starts.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/config/input_error.hpp"
#include "core/config/overrides.hpp"
#include "core/config/scenario.hpp"
#include "core/cost/cost_model.hpp"
#include "core/workload/agents.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath::cli {

inline void add_scenario_options(CLI::App* cmd, std::vector<std::string>& overrides,
                                 std::vector<std::string>& overlays,
                                 const std::string& set_help = "Override a field: path=value") {
  cmd->add_option("--set", overrides, set_help)->take_all()->allow_extra_args(false);
  cmd->add_option("--overlay", overlays,
                  "Overlay JSON file of overrides (e.g. from `hw calibrate`), applied before --set; repeatable")
      ->take_all()
      ->allow_extra_args(false);
  // --calibration NAME|FILE is the scenario's "calibration" key, set under every --set (which runs its callback
  // first: options run in the order they were added), so `--set calibration=...` still wins and child runs get it
  // through --set like any other override.
  cmd->add_option_function<std::string>(
         "--calibration",
         [&overrides](const std::string& ref) {
           overrides.insert(overrides.begin(), labelled_override("--calibration " + ref, "calibration=" + ref));
         },
         "Cluster calibration: a bundled name (ideal, paper-cluster) or a calibration file; default: the scenario's "
         "\"calibration\", else ideal (docs/calibration.md)")
      ->type_name("NAME|FILE");
}

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

// Every rule `run` applies when it builds the cluster and its agents, checked without simulating: the step profile
// has the scenario's group sizes, the weights fit, the policy exists and takes the settings, the trace parses and its
// agents can be made (max_len fits every first round, aps = 0 has arrival times). `check` prints the configuration
// after it; capacity and plan run it once before any probe, so a --set every probe would refuse is exit 2 before
// any work, not a failed probe.
inline void check_runnable(const Scenario& sc, const std::string& scenario_path) {
  check_step_profile(sc);
  check_weights_fit(sc);
  check_policy(sc, scenario_path, sc.policy.name, scenario_path + ": /policy/name");
  make_agents(load_workload_trace(sc.workload, ""), sc.workload);  // the loader resolved workload.file
}

}  // namespace dualpath::cli
