// Comma-separated lists of names on the command line (--policy basic,dualpath, --only 1,3): one parser, so every
// command refuses an empty item (`basic,,dualpath`, a trailing comma) instead of dropping it.
#pragma once

#include <string>
#include <vector>

#include "core/config/command_values.hpp"

namespace dualpath::cli {

// The items of `text` in order; an empty `text` gives none. InputError ("OPTION TEXT: ...") on an empty item
// (core/config/command_values.hpp, comma_items: one rule for every list).
inline std::vector<std::string> name_list(const std::string& text, const std::string& option) {
  return comma_items(text, option + " " + text, "names");
}

}  // namespace dualpath::cli
