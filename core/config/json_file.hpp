// Reading one JSON configuration file, with errors that name the file (and line and column for syntax errors).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dualpath {

// Parses the file at `path`. `what` names the kind of file for messages ("scenario", "model", "topology").
// Throws InputError when the file is missing, unreadable, empty or not valid JSON ("path:LINE:COL: ...").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// JSON text parsed as nlohmann::json::parse does, but strict where JSON is lax: a key repeated in one object (the
// last would silently win) is a StrictJsonError naming its JSON path, and a number too large for a double
// (1e400) is one naming the number, and so is a control byte (a NUL after the object, which nlohmann would take
// for the end of the text), instead of a library exception or a silent cut. Syntax errors stay
// nlohmann::json::parse_error, for the caller to place.
struct StrictJsonError {
  std::string what;       // e.g. `duplicate key "agents" at /workload/agents`
  size_t offset = 0;      // byte offset of the offending text when known (a number), else npos
};
nlohmann::json parse_json_strict(const std::string& text);

// 1-based line and column of byte offset `offset` in `text`.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};
TextPosition position_of(const std::string& text, size_t offset);

}  // namespace dualpath
