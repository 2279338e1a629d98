#include "core/config/overrides.hpp"

#include <vector>

#include "core/config/command_values.hpp"
#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/config/object_reader.hpp"

namespace dualpath {
namespace {

std::vector<std::string> split_path(const std::string& path, const std::string& where) {
  // "/a/b" is a JSON pointer; anything else is dotted or slash-separated ("a.b", "a/b").
  std::string body = path.starts_with("/") ? path.substr(1) : path;
  std::vector<std::string> segments;
  std::string current;
  for (char c : body) {
    if (c == '.' || c == '/') {
      segments.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  segments.push_back(current);
  for (const auto& s : segments) {
    if (s.empty()) throw InputError(where, "empty key in override path \"" + path + "\"");
  }
  return segments;
}

}  // namespace

std::string override_pointer(const std::string& path, const std::string& where) {
  if (path.empty()) throw InputError(where, "expected a path such as topology.snic_bw, found an empty one");
  std::string pointer;
  for (const auto& segment : split_path(path, where)) pointer = pointer_join(pointer, segment);
  return pointer;
}

namespace {
constexpr char kLabel = '\x1F';  // ASCII unit separator: never part of a path=value a user types
}  // namespace

std::string labelled_override(const std::string& origin, const std::string& text) {
  return std::string(1, kLabel) + origin + kLabel + text;
}

Override parse_override(const std::string& labelled) {
  Override o;
  std::string text = labelled;
  o.text = "--set " + text;
  if (!text.empty() && text.front() == kLabel) {
    if (const size_t end = text.find(kLabel, 1); end != std::string::npos) {
      o.text = text.substr(1, end - 1);
      text = text.substr(end + 1);
    }
  }
  check_command_text(text, o.text.substr(0, o.text.find(' ')));  // "--set" (the text itself may not print)
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw InputError(o.text, "expected path=value, e.g. topology.snic_bw=\"200 Gbps\"");
  const std::string path = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  if (path.empty()) throw InputError(o.text, "missing path before '='");
  o.pointer = override_pointer(path, o.text);
  // Strings need no JSON quotes on a command line; anything that is not valid JSON is taken as a string.
  o.value = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (o.value.is_discarded()) o.value = value;
  // A JSON object given as a value is read as strictly as a file: a repeated key is refused, not last-wins.
  if (o.value.is_structured()) {
    try {
      (void)parse_json_strict(value);
    } catch (const StrictJsonError& e) {
      throw InputError(o.text, "the value " + e.what);
    }
  }
  return o;
}

void apply_override(nlohmann::json& tree, const Override& o, Origins& origins) {
  nlohmann::json* node = &tree;
  std::string pointer;
  std::string first_created;
  const nlohmann::json::json_pointer target(o.pointer);
  // Walk every segment but the last, creating missing objects.
  std::vector<std::string> segments;
  for (auto p = target; !p.empty(); p = p.parent_pointer()) segments.insert(segments.begin(), p.back());
  // RFC 6901's "-" as the last segment names one past the end of a list: the value is appended (`run --fault`
  // adds an entry to "faults" this way).
  const bool append = segments.size() >= 2 && segments.back() == "-";
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    pointer = pointer_join(pointer, segments[i]);
    const bool list = append && i + 2 == segments.size();
    if (!node->contains(segments[i])) {
      (*node)[segments[i]] = list ? nlohmann::json::array() : nlohmann::json::object();
      if (first_created.empty()) first_created = pointer;
    }
    node = &(*node)[segments[i]];
    if (list) {
      if (!node->is_array())
        throw InputError(o.text + ": " + pointer, "cannot append to " + describe_found(*node) + "; expected a list here");
      node->push_back(o.value);
      const std::string element = pointer_join(pointer, std::to_string(node->size() - 1));
      origins.set_with_base(first_created.empty() ? element : first_created, o.text, o.base_dir);
      return;
    }
    if (!node->is_object()) {
      throw InputError(o.text + ": " + pointer, "cannot set a key inside " + describe_found(*node) +
                                                    "; expected an object here");
    }
  }
  (*node)[segments.back()] = o.value;
  origins.set_with_base(first_created.empty() ? o.pointer : first_created, o.text, o.base_dir);
}

}  // namespace dualpath
