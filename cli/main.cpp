// dualpath: command-line entry point. Subcommands are registered from cli/*_cmd.cpp.
#include <iostream>

#include "cli/commands.hpp"
#include "core/config/input_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"dualpath: discrete-event simulator of DualPath agentic LLM inference (arXiv 2602.21548)"};
  app.require_subcommand(1);
  dualpath::cli::register_trace_commands(app);
  dualpath::cli::register_run_command(app);
  dualpath::cli::register_check_command(app);
  dualpath::cli::register_analyze_command(app);
  dualpath::cli::register_sweep_command(app);
  dualpath::cli::register_claims_command(app);
  dualpath::cli::register_report_command(app);
  dualpath::cli::register_hw_commands(app);
  dualpath::cli::register_validate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand asked for a specific exit code
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : dualpath::cli::kExitBadInput;
  } catch (const dualpath::InputError& e) {
    std::cerr << "dualpath: error: " << e.what() << "\n";
    return dualpath::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "dualpath: failed: " << e.what() << "\n";
    return dualpath::cli::kExitFailure;
  }
  return 0;
}
