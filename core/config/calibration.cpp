#include "core/config/calibration.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/config/object_reader.hpp"

namespace dualpath {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kKeys[] = {"calibration", "name", "label", "description", "set", "parameters", "sources"};

std::string calibrations_dir() { return std::string(DUALPATH_DATA_DIR) + "/calibrations"; }

bool looks_like_path(const std::string& ref) {
  return ref.find('/') != std::string::npos || (ref.size() > 5 && ref.substr(ref.size() - 5) == ".json");
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const std::string& required_string(const json& doc, const char* key, const std::string& file) {
  const auto it = doc.find(key);
  if (it == doc.end()) throw InputError(file + ": /", std::string("missing required key \"") + key + "\"");
  if (!it->is_string() || it->get_ref<const std::string&>().empty())
    throw InputError(file + ": /" + key, "expected a non-empty string, found " + describe_found(*it));
  return it->get_ref<const std::string&>();
}

}  // namespace

std::vector<std::string> bundled_calibrations() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(calibrations_dir(), ec)) {
    const fs::path p = e.path();
    if (p.extension() == ".json" && p.stem() != "schema") names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string bundled_calibration_file(const std::string& ref) {
  if (ref.empty() || looks_like_path(ref)) return "";
  const auto names = bundled_calibrations();
  return std::find(names.begin(), names.end(), ref) != names.end() ? calibrations_dir() + "/" + ref + ".json" : "";
}

Calibration read_calibration(const std::string& ref, const std::string& base_dir, const std::string& where) {
  Calibration c;
  c.file = bundled_calibration_file(ref);
  c.bundled = !c.file.empty();
  if (!c.bundled) {
    if (ref.empty() || !looks_like_path(ref))
      throw InputError(where, "unknown calibration \"" + ref + "\"; expected one of " +
                                  join_names(bundled_calibrations()) + " or a calibration file path (.json)");
    c.file = (fs::path(base_dir) / ref).lexically_normal().string();
  }
  json doc;
  try {
    doc = read_json_file(c.file, "calibration");
  } catch (const InputError& e) {
    throw InputError(where, "cannot load calibration \"" + ref + "\": " + e.what());
  }
  const std::string& f = c.file;
  if (!doc.is_object()) throw InputError(f + ": /", "expected a calibration object, found " + describe_found(doc));
  for (const auto& [key, value] : doc.items())
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys))
      throw InputError(f + ": " + pointer_join("", key),
                       "unknown field; a calibration has \"calibration\", \"name\", \"label\", \"description\", "
                       "\"set\", \"parameters\" and \"sources\"");
  const auto version = doc.find("calibration");
  if (version == doc.end()) throw InputError(f + ": /", "missing required key \"calibration\" (the format version, 1)");
  if (!version->is_number_integer() || version->get<int64_t>() != 1)
    throw InputError(f + ": /calibration", "expected 1 (the only calibration format version), found " +
                                               describe_found(*version));
  c.name = required_string(doc, "name", f);
  if (c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
    throw InputError(f + ": /name", "expected letters, digits, '.', '_' or '-' (the name becomes a folder of --band), "
                                    "found \"" + c.name + "\"");
  c.label = required_string(doc, "label", f);
  if (const auto d = doc.find("description"); d != doc.end() && !d->is_string())
    throw InputError(f + ": /description", "expected a string, found " + describe_found(*d));
  if (const auto s = doc.find("sources"); s != doc.end() && !s->is_object())
    throw InputError(f + ": /sources", "expected an object (key -> source), found " + describe_found(*s));

  const auto set = doc.find("set");
  if (set == doc.end()) throw InputError(f + ": /", "missing required key \"set\" (topology path -> value; {} for none)");
  if (!set->is_object())
    throw InputError(f + ": /set", "expected an object of topology path -> value, found " + describe_found(*set));
  const auto params = doc.find("parameters");
  if (params != doc.end() && !params->is_object())
    throw InputError(f + ": /parameters", "expected an object (set path -> how it was fitted), found " +
                                              describe_found(*params));
  const std::string base = fs::path(c.file).parent_path().string();
  std::map<std::string, std::string> seen;
  for (const auto& [key, value] : set->items()) {
    Override ov;
    ov.text = f + ": " + pointer_join("/set", key);
    ov.pointer = override_pointer(key, ov.text);
    // A calibration describes the cluster, not the model or the workload: one file applies to every model on it.
    if (ov.pointer.rfind("/topology/", 0) != 0)
      throw InputError(ov.text, "expected a topology path (\"topology.X\"): a calibration describes the cluster's "
                                "hardware, not the model, workload or policy");
    if (ov.pointer == "/topology/name" || ov.pointer.rfind("/topology/gpus_per_node", 0) == 0)
      throw InputError(ov.text, "a calibration tunes the cluster it is applied to; it cannot rename it or change "
                                "its node geometry");
    ov.value = value;
    ov.base_dir = base;
    if (auto [it, fresh] = seen.emplace(ov.pointer, key); !fresh)
      throw InputError(ov.text, "sets the same field as \"" + it->second + "\"; keep one of them");
    // Every value names the figures it was fitted to: a calibration without them is a silent constant.
    const json* p = params != doc.end() && params->contains(key) ? &params->at(key) : nullptr;
    if (!p)
      throw InputError(f + ": " + pointer_join("/parameters", key),
                       "missing: every value of \"set\" names the figures it was fitted to "
                       "({\"fitted_to\": [\"...\"], \"residuals\": {...}})");
    const auto fitted = p->is_object() ? p->find("fitted_to") : p->end();
    if (!p->is_object() || fitted == p->end() || !fitted->is_array() || fitted->empty() ||
        !std::all_of(fitted->begin(), fitted->end(), [](const json& x) { return x.is_string() && !x.get<std::string>().empty(); }))
      throw InputError(f + ": " + pointer_join(pointer_join("/parameters", key), "fitted_to"),
                       "expected a non-empty list of the figures (strings) this value was fitted to");
    c.set.push_back(std::move(ov));
  }
  if (params != doc.end())
    for (const auto& [key, value] : params->items())
      if (!set->contains(key))
        throw InputError(f + ": " + pointer_join("/parameters", key), "names a key that \"set\" does not set");
  std::sort(c.set.begin(), c.set.end(), [](const Override& a, const Override& b) { return a.pointer < b.pointer; });
  return c;
}

}  // namespace dualpath
