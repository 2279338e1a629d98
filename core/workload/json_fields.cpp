#include "core/workload/json_fields.hpp"

#include <cmath>
#include <cstdint>

#include "core/config/input_error.hpp"
#include "core/config/input_file.hpp"
#include "core/config/json_file.hpp"
#include "core/workload/read_progress.hpp"

namespace dualpath::workload {

std::string describe(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

int64_t get_int(const nlohmann::json& v, const std::string& where, const std::string& name, int64_t lo, int64_t hi) {
  const std::string expected =
      name + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found ";
  if (!v.is_number_integer()) throw InputError(where, expected + describe(v));
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    // JSON parsers store non-negative literals as unsigned: check both bounds here too.
    if (u > static_cast<uint64_t>(hi) || (lo > 0 && u < static_cast<uint64_t>(lo))) throw InputError(where, expected + std::to_string(u));
    return static_cast<int64_t>(u);
  }
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) throw InputError(where, expected + std::to_string(x));
  return x;
}

double get_number(const nlohmann::json& v, const std::string& where, const std::string& name, double lo, double hi) {
  if (!v.is_number()) throw InputError(where, name + ": expected a number, found " + describe(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw InputError(where, name + ": expected a number in [" + nlohmann::json(lo).dump() + ", " +
                                nlohmann::json(hi).dump() + "], found " + v.dump());
  return x;
}

nlohmann::json parse_object_line(const std::string& line, const std::string& where) {
  nlohmann::json j;
  try {
    j = parse_json_strict(line);
  } catch (const StrictJsonError& e) {
    const std::string column = e.offset == std::string::npos ? "" : ":" + std::to_string(e.offset + 1);
    throw InputError(where + column, "expected one JSON object per line: " + e.what);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() names the column ("... at line 1, column 17: ..."); keep it, it pinpoints the typo.
    std::string msg = e.what();
    for (char& ch : msg)
      if (static_cast<unsigned char>(ch) < 0x20) ch = '?';  // the message must stay on one line
    // nlohmann numbers lines within the parsed text, which is always line 1 here: keep only the column.
    if (const auto at = msg.find("at line 1, "); at != std::string::npos) msg.erase(at + 3, 8);
    const auto pos = msg.find("] ");
    throw InputError(where, "expected one JSON object per line, found malformed JSON (" +
                                (pos == std::string::npos ? msg : msg.substr(pos + 2)) + ")");
  }
  if (!j.is_object()) throw InputError(where, "expected one JSON object per line, found " + describe(j));
  return j;
}

void reject_unknown_keys(const nlohmann::json& obj, const std::string& where,
                         std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : obj.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw InputError(where, "unknown key '" + key + "' (expected only: " + list + ")");
    }
  }
}

void for_each_record(std::istream& in, const std::string& path, const std::string& what,
                     std::initializer_list<const char*> keys,
                     const std::function<void(const nlohmann::json&, const std::string&, int64_t)>& f) {
  std::string list;
  for (const char* k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
  std::string line;
  int64_t records = 0;
  ReadProgress progress(in, path);
  for (int64_t lineno = 1; read_bounded_line(in, line, path, lineno); ++lineno) {
    progress.line();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(lineno);
    const nlohmann::json j = parse_object_line(line, where);
    reject_unknown_keys(j, where, keys);
    for (const char* key : keys)
      if (!j.contains(key)) throw InputError(where, std::string("missing key '") + key + "' (a " + what + " needs " + list + ")");
    f(j, where, lineno);
    ++records;
  }
  if (in.bad()) throw InputError(path, "read error (the file could not be read to its end)");
  if (records == 0) throw InputError(path, "expected at least one " + what + " (one JSON object per line), found none");
}

std::vector<int64_t> get_ids(const nlohmann::json& v, const std::string& where, const std::string& name) {
  if (!v.is_array()) throw InputError(where, name + ": expected an array of integers, found " + describe(v));
  std::vector<int64_t> ids;
  ids.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    ids.push_back(get_int(v[i], where, name + "[" + std::to_string(i) + "]", 0, INT64_MAX));
  return ids;
}

}  // namespace dualpath::workload
