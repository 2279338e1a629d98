// dualpath check SCENARIO [--overlay FILE]... [--set k=v]...: load and validate a scenario, print the effective configuration.
// Exit 0 when valid; bad input raises InputError, which main() reports on one line with exit code 2.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/scenario_options.hpp"
#include "core/config/loader.hpp"
#include "core/cost/cost_model.hpp"
#include "core/workload/agents.hpp"

namespace dualpath::cli {

void register_check_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("check", "Validate a scenario and print its effective configuration (SI units)");
  // CLI11 keeps the option storage alive for the callback, so plain shared state is enough here.
  struct Args {
    std::string scenario;
    std::vector<std::string> overrides;
    std::vector<std::string> overlays;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("scenario", args->scenario, "Scenario JSON file")->required();
  add_scenario_options(cmd, args->overrides, args->overlays,
                       "Override a field: path=value (e.g. topology.snic_bw=\"200 Gbps\")");
  cmd->callback([args] {
    const Scenario s = load_scenario(args->scenario, args->overrides, args->overlays);
    check_runnable(s, args->scenario);
    std::cout << scenario_to_json(s).dump(2) << "\n";
  });
}

}  // namespace dualpath::cli
