// Reading one JSON configuration file, with errors that name the file (and line and column for syntax errors).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dualpath {

// Parses the file at `path`. `what` names the kind of file for messages ("scenario", "model", "topology").
// Throws InputError when the file is missing, unreadable, empty or not valid JSON ("path:LINE:COL: ...").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// 1-based line and column of byte offset `offset` in `text`.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};
TextPosition position_of(const std::string& text, size_t offset);

}  // namespace dualpath
