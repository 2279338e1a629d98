// The options every command that loads a scenario takes: --set overrides and --overlay files (applied in that
// order by load_scenario: overlays first, then --set). One definition so their syntax and help agree everywhere.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/config/input_error.hpp"
#include "core/config/overrides.hpp"
#include "core/config/scenario.hpp"
#include "core/study/runnable.hpp"

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

// The checks before a run, shared with the study layer (core/study/runnable.hpp).
using study::check_policy;
using study::check_runnable;

}  // namespace dualpath::cli
