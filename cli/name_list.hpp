// Comma-separated lists of names on the command line (--policy basic,dualpath, --only 1,3): one parser, so every
// command refuses an empty item (`basic,,dualpath`, a trailing comma) instead of dropping it.
#pragma once

#include <string>
#include <vector>

#include "core/config/input_error.hpp"

namespace dualpath::cli {

// The items of `text` in order; an empty `text` gives none. InputError ("OPTION TEXT: ...") on an empty item.
inline std::vector<std::string> name_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw InputError(option + " " + text, "expected comma-separated names, found an empty one");
    out.push_back(std::move(item));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace dualpath::cli
