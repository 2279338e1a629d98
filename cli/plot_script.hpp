// Runs one of the analysis/ plotting scripts with /usr/bin/python3 (Debian's matplotlib). Plots are a courtesy: a
// missing python3-matplotlib gives a warning, never a failed command.
#pragma once

#include <string>
#include <vector>

namespace dualpath::cli {

// Runs analysis/<script> with `args` (each shell-quoted). Prints "<who>: plot <png>" on success, or a warning on
// stderr; returns whether it succeeded.
bool run_plot_script(const std::string& who, const std::string& script, const std::vector<std::string>& args,
                     const std::string& png);

}  // namespace dualpath::cli
