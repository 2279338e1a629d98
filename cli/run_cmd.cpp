// dualpath run (placeholder until the simulator lands)
#include "cli/commands.hpp"
namespace dualpath::cli {
void register_run_command(CLI::App& app) { app.add_subcommand("run", "Run a scenario"); }
}  // namespace dualpath::cli
