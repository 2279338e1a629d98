// The one exception type for bad user input (config files, overrides, trace files).
// The CLI prints its message on one line and exits with code 2; anything else is a bug.
#pragma once

#include <stdexcept>
#include <string>

namespace dualpath {

class InputError : public std::runtime_error {
 public:
  // where: "file", "file:line" or "file: /json/path"; what: what was expected and what was found.
  InputError(const std::string& where, const std::string& what) : std::runtime_error(where + ": " + what) {}
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace dualpath
