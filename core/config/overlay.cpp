#include "core/config/overlay.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/config/object_reader.hpp"

namespace dualpath {
namespace {

using nlohmann::json;

const char* const kKeys[] = {"overlay", "description", "measured", "set"};

}  // namespace

Overlay read_overlay(const std::string& path) {
  const json doc = read_json_file(path, "overlay");
  auto where = [&](const std::string& pointer) { return path + ": " + pointer; };
  if (!doc.is_object()) throw InputError(where("/"), "expected an overlay object, found " + describe_found(doc));
  for (const auto& [key, value] : doc.items()) {
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys))
      throw InputError(where(pointer_join("", key)),
                       "unknown field; an overlay has \"overlay\", \"description\", \"measured\" and \"set\"");
  }
  // The version is checked first: a future format should be refused as such, not as a list of odd fields.
  const auto version = doc.find("overlay");
  if (version == doc.end()) throw InputError(where("/"), "missing required key \"overlay\" (the format version, 1)");
  if (!version->is_number_integer() || version->get<int64_t>() != 1)
    throw InputError(where("/overlay"), "expected 1 (the only overlay format version), found " + describe_found(*version));

  Overlay o;
  o.file = path;
  if (const auto d = doc.find("description"); d != doc.end()) {
    if (!d->is_string()) throw InputError(where("/description"), "expected a string, found " + describe_found(*d));
    o.description = d->get<std::string>();
  }
  if (const auto m = doc.find("measured"); m != doc.end() && !m->is_object())
    throw InputError(where("/measured"), "expected an object (free-form measurements), found " + describe_found(*m));
  const auto set = doc.find("set");
  if (set == doc.end()) throw InputError(where("/"), "missing required key \"set\" (override path -> value)");
  if (!set->is_object()) throw InputError(where("/set"), "expected an object of override path -> value, found " +
                                                            describe_found(*set));

  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  std::map<std::string, std::string> seen;  // pointer -> the key that named it, to refuse two spellings of one path
  for (const auto& [key, value] : set->items()) {
    Override ov;
    ov.text = where(pointer_join("/set", key));
    ov.pointer = override_pointer(key, ov.text);
    ov.value = value;
    ov.base_dir = base_dir;
    if (auto [it, fresh] = seen.emplace(ov.pointer, key); !fresh)
      throw InputError(ov.text, "sets the same field as \"" + it->second + "\"; keep one of them");
    o.set.push_back(std::move(ov));
  }
  std::sort(o.set.begin(), o.set.end(), [](const Override& a, const Override& b) { return a.pointer < b.pointer; });
  return o;
}

}  // namespace dualpath
