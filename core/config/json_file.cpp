#include "core/config/json_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config/input_error.hpp"

namespace dualpath {

TextPosition position_of(const std::string& text, size_t offset) {
  TextPosition pos;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, what + " file does not exist");
  if (fs::is_directory(path, ec)) throw InputError(path, what + " file is a directory, expected a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open " + what + " file for reading");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw InputError(path, what + " file is empty, expected a JSON object");
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte counts the characters read, so the offending one is at offset byte - 1.
    const TextPosition pos = position_of(text, e.byte == 0 ? 0 : e.byte - 1);
    // Keep nlohmann's description ("syntax error while parsing object - unexpected '}'; ...") without its
    // "[json.exception.parse_error.101] parse error at line L, column C: " preamble.
    std::string detail = e.what();
    if (const size_t col = detail.find("column"); col != std::string::npos) {
      if (const size_t colon = detail.find(": ", col); colon != std::string::npos) detail = detail.substr(colon + 2);
    }
    throw InputError(path + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column),
                     "malformed JSON in " + what + " file: " + detail);
  }
}

}  // namespace dualpath
