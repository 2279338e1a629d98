// The shared body of `main` for the command-line programs (dualpath, dualpath-hw): parse, run the chosen
// subcommand, and turn its outcome into an exit code (0, 1 = the run failed, 2 = bad input) and one stderr line.
#pragma once

#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.hpp"
#include "cli/invocation.hpp"
#include "core/config/input_error.hpp"

namespace dualpath::cli {

inline int run_app(CLI::App& app, int argc, char** argv, const std::string& program) {
  invocation_args().assign(argv + 1, argv + argc);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand asked for a specific exit code
    return e.get_exit_code();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line with our prefix, like every other bad input (CLI11's own exit() prints two without it).
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::cerr << program << ": error: " << what << " (see " << program << " --help)\n";
    return kExitBadInput;
  } catch (const InputError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << program << ": failed: " << e.what() << "\n";
    return kExitFailure;
  }
  return 0;
}

}  // namespace dualpath::cli
