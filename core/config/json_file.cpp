#include "core/config/json_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "core/config/input_error.hpp"
#include "core/config/input_file.hpp"

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

nlohmann::json parse_json_strict(const std::string& text) {
  // JSON allows no control byte outside strings but tab, LF and CR, and none inside them; nlohmann's reader stops at
  // a NUL as if the text ended there, so "{...}\0garbage" would pass. Refuse every such byte, wherever it is.
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      throw StrictJsonError{std::string("control byte ") + hex + (c == 0 ? " (NUL)" : "") +
                                " where JSON allows none (is the file binary or truncated?)",
                            i};
    }
  }
  struct Frame {
    bool object = true;
    std::set<std::string> keys;
    std::string key;  // the current key (objects)
    size_t index = 0; // the current element (arrays)
  };
  std::vector<Frame> stack;
  auto path = [&stack] {
    std::string p;
    for (const auto& f : stack) p += "/" + (f.object ? f.key : std::to_string(f.index));
    return p;
  };
  auto value_done = [&stack] {
    if (!stack.empty() && !stack.back().object) ++stack.back().index;
  };
  using E = nlohmann::json::parse_event_t;
  try {
    return nlohmann::json::parse(text, [&](int, E event, nlohmann::json& parsed) {
      switch (event) {
        case E::object_start: stack.push_back(Frame{}); break;
        case E::array_start: stack.push_back(Frame{false, {}, {}, 0}); break;
        case E::key: {
          const std::string k = parsed.get<std::string>();
          if (!stack.back().keys.insert(k).second) {
            stack.back().key = k;
            throw StrictJsonError{"duplicate key \"" + k + "\" at " + path() +
                                      " (JSON parsers would keep only the last; write it once)",
                                  std::string::npos};
          }
          stack.back().key = k;
          break;
        }
        case E::object_end:
        case E::array_end:
          stack.pop_back();
          value_done();
          break;
        case E::value: value_done(); break;
      }
      return true;
    });
  } catch (const nlohmann::json::out_of_range& e) {  // 406: a number that overflows a double
    std::string msg = e.what();
    const auto q = msg.find('\'');
    const std::string number = q == std::string::npos ? "" : msg.substr(q + 1, msg.find('\'', q + 1) - q - 1);
    throw StrictJsonError{"number " + number + " is too large (beyond 1.8e308)",
                          number.empty() ? std::string::npos : text.find(number)};
  }
}

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in = open_input_file(path, what, std::ios::binary);
  // Bounded before and while reading: a file's size is checked first, and the read stops one byte past the bound
  // (a file that grows, or a device that reports no size).
  auto too_large = [&] {
    return InputError(path, what + " file is larger than " + std::to_string(kMaxJsonFileBytes >> 20) +
                                " MiB, expected a JSON document of at most that (is it the right file?)");
  };
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxJsonFileBytes) throw too_large();
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxJsonFileBytes) throw too_large();
  }
  if (in.bad()) throw InputError(path, "read error (the " + what + " file could not be read to its end)");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw InputError(path, what + " file is empty, expected a JSON object");
  }
  try {
    return parse_json_strict(text);
  } catch (const StrictJsonError& e) {
    if (e.offset == std::string::npos) throw InputError(path, "malformed " + what + " file: " + e.what);
    const TextPosition pos = position_of(text, e.offset);
    throw InputError(path + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column),
                     "malformed " + what + " file: " + e.what);
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
