// dualpath: command-line entry point. Subcommands are registered from cli/*_cmd.cpp.
#include "cli/app_main.hpp"
#include "cli/commands.hpp"
#include "core/run/build_info.hpp"

int main(int argc, char** argv) {
  CLI::App app{"dualpath: discrete-event simulator of DualPath agentic LLM inference (arXiv 2602.21548)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("dualpath ") + dualpath::build_version());
  app.footer("The words the tables print (binds, APS, TTFT, the wait causes, brackets, TIE): docs/glossary.md");
  dualpath::cli::register_trace_commands(app);
  dualpath::cli::register_run_command(app);
  dualpath::cli::register_check_command(app);
  dualpath::cli::register_analyze_command(app);
  dualpath::cli::register_capacity_command(app);
  dualpath::cli::register_plan_command(app);
  dualpath::cli::register_sweep_command(app);
  dualpath::cli::register_claims_command(app);
  dualpath::cli::register_report_command(app);
  dualpath::cli::register_hw_commands(app);
  dualpath::cli::register_validate_command(app);
  dualpath::cli::register_calibrate_command(app);
  return dualpath::cli::run_app(app, argc, argv, "dualpath");
}
