// The shared body of `main` for the command-line programs (dualpath, dualpath-hw): parse, run the chosen
// subcommand, and turn its outcome into an exit code (0, 1 = the run failed, 2 = bad input) and one stderr line.
#pragma once

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/invocation.hpp"
#include "core/config/input_error.hpp"

namespace dualpath::cli {

// For an option that takes key=value (--set, --sim-set, --vary) given "key value" as two words, what to type
// instead ("; --set takes key=value: write --set workload.agents=64"), else "". CLI11 reports the second word only
// as "not expected".
inline std::string key_value_hint(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    const std::string& opt = args[i];
    if (opt != "--set" && opt != "--sim-set" && opt != "--vary") continue;
    const std::string& key = args[i + 1];
    if (key.find('=') != std::string::npos || i + 2 >= args.size() || args[i + 2].rfind("--", 0) == 0) continue;
    return "; " + opt + " takes key=value: write " + opt + " " + key + "=" + args[i + 2];
  }
  return "";
}

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
    std::cerr << program << ": error: " << what << key_value_hint(invocation_args()) << " (see " << program
              << " --help)\n";
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
