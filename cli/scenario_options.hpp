// The options every command that loads a scenario takes: --set overrides and --overlay files (applied in that
// order by load_scenario: overlays first, then --set). One definition so their syntax and help agree everywhere.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dualpath::cli {

inline void add_scenario_options(CLI::App* cmd, std::vector<std::string>& overrides,
                                 std::vector<std::string>& overlays,
                                 const std::string& set_help = "Override a field: path=value") {
  cmd->add_option("--set", overrides, set_help)->take_all()->allow_extra_args(false);
  cmd->add_option("--overlay", overlays,
                  "Overlay JSON file of overrides (e.g. from `hw calibrate`), applied before --set; repeatable")
      ->take_all()
      ->allow_extra_args(false);
}

}  // namespace dualpath::cli
