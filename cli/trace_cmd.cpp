// dualpath trace gen | stats | convert (placeholder until the workload module lands)
#include "cli/commands.hpp"
namespace dualpath::cli {
void register_trace_commands(CLI::App& app) { app.add_subcommand("trace", "Generate, inspect and convert traces"); }
}  // namespace dualpath::cli
