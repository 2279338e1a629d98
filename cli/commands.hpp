// Subcommands of the `dualpath` program; each file in cli/ registers one family.
#pragma once

#include <CLI/CLI.hpp>

namespace dualpath::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;    // the run itself failed (e.g. no progress possible)
inline constexpr int kExitBadInput = 2;   // bad configuration, override, trace or command line

void register_trace_commands(CLI::App& app);  // trace gen | stats | convert   (trace_cmd.cpp)
void register_run_command(CLI::App& app);     // run                           (run_cmd.cpp)
void register_check_command(CLI::App& app);   // check                         (check_cmd.cpp)
void register_analyze_command(CLI::App& app); // analyze bandwidth | cost      (analyze_cmd.cpp)
void register_analyze_cost(CLI::App& analyze);// analyze cost                  (analyze_cost.cpp)
void register_sweep_command(CLI::App& app);   // sweep                         (sweep_cmd.cpp)
void register_capacity_command(CLI::App& app);// capacity                      (capacity_cmd.cpp)
void register_plan_command(CLI::App& app);    // plan                          (plan_cmd.cpp)
void register_claims_command(CLI::App& app);  // claims                        (claims_cmd.cpp)
void register_report_command(CLI::App& app);  // report                        (report_cmd.cpp)
void register_hw_commands(CLI::App& app);     // hw run | calibrate            (hw_cmd.cpp)
void register_validate_command(CLI::App& app);// validate                      (validate_cmd.cpp)
void register_calibrate_command(CLI::App& app);// calibrate                    (calibrate_cmd.cpp)

}  // namespace dualpath::cli
