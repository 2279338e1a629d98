#include "core/config/object_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/config/input_error.hpp"
#include "core/config/near_miss.hpp"

namespace dualpath {
namespace {

using nlohmann::json;

std::string type_name(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return v.type_name();  // "null", "boolean", "string", "array", "object"
}

std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

const json& empty_object() {
  static const json kEmpty = json::object();
  return kEmpty;
}

}  // namespace

std::string Range::describe() const {
  const bool has_min = std::isfinite(min);
  const bool has_max = std::isfinite(max);
  if (has_min && has_max)
    return "in " + std::string(min_open ? "(" : "[") + format_number(min) + ", " + format_number(max) +
           (max_open ? ")" : "]");
  if (has_min) return (min_open ? "> " : ">= ") + format_number(min);
  if (has_max) return (max_open ? "< " : "<= ") + format_number(max);
  return "finite";
}

std::string pointer_join(const std::string& parent, const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~') escaped += "~0";
    else if (c == '/') escaped += "~1";
    else escaped += c;
  }
  return parent + "/" + escaped;
}

std::string describe_found(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return type_name(value) + " " + text;
}

ObjectReader::ObjectReader(const json& value, std::string pointer, const Origins& origins,
                           std::initializer_list<const char*> allowed)
    : value_(value), pointer_(std::move(pointer)), origins_(origins) {
  for (const char* k : allowed) allowed_.insert(k);
  if (!value_.is_object()) {
    throw InputError(origins_.where(pointer_), "expected an object, found " + describe_found(value_));
  }
  for (const auto& [key, unused] : value_.items()) {
    if (allowed_.count(key)) continue;
    std::string best;
    size_t best_distance = 3;  // suggest only near misses
    std::string listing;
    for (const std::string& a : allowed_) {
      listing += (listing.empty() ? "" : ", ") + a;
      const size_t d = edit_distance(key, a);
      if (d < best_distance) best_distance = d, best = a;
    }
    throw InputError(origins_.where(pointer_join(pointer_, key)),
                     "unknown key \"" + key + "\"" + (best.empty() ? "" : " (did you mean \"" + best + "\"?)") +
                         "; allowed keys: " + listing);
  }
}

void ObjectReader::check_declared(const std::string& key) const {
  // A getter for an undeclared key is a programming error in the loader, not bad input.
  if (!allowed_.count(key)) throw std::logic_error("ObjectReader: key \"" + key + "\" not declared at " + pointer_);
}

bool ObjectReader::has(const std::string& key) const {
  check_declared(key);
  return value_.contains(key);
}

const json* ObjectReader::find(const std::string& key) const {
  check_declared(key);
  auto it = value_.find(key);
  return it == value_.end() ? nullptr : &*it;
}

const json& ObjectReader::require(const std::string& key) const {
  if (const json* v = find(key)) return *v;
  throw InputError(origins_.where(pointer_), "missing required key \"" + key + "\"");
}

void ObjectReader::fail(const std::string& key, const std::string& what) const {
  throw InputError(origins_.where(pointer_join(pointer_, key)), what);
}

std::string ObjectReader::string(const std::string& key) const {
  const json& v = require(key);
  if (!v.is_string()) fail(key, "expected a string, found " + describe_found(v));
  return v.get<std::string>();
}

std::string ObjectReader::string_or(const std::string& key, const std::string& fallback) const {
  return find(key) ? string(key) : fallback;
}

std::string ObjectReader::choice(const std::string& key, const std::vector<std::string>& allowed,
                                 std::optional<std::string> fallback) const {
  if (!find(key) && fallback) return *fallback;
  const std::string s = string(key);
  if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return s;
  std::string listing;
  for (const auto& a : allowed) listing += (listing.empty() ? "\"" : " | \"") + a + "\"";
  fail(key, "expected one of " + listing + ", found \"" + s + "\"" + did_you_mean(s, allowed));
}

int64_t ObjectReader::integer(const std::string& key, int64_t min, int64_t max, std::optional<int64_t> fallback) const {
  const json* found = find(key);
  if (!found && fallback) return *fallback;
  const json& v = require(key);
  int64_t n = 0;
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(max)) fail(key, "expected an integer <= " + std::to_string(max) + ", found " + describe_found(v));
    n = static_cast<int64_t>(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    n = v.get<int64_t>();
  } else if (v.is_number_float() && std::trunc(v.get<double>()) == v.get<double>() && std::abs(v.get<double>()) < 9e15) {
    n = static_cast<int64_t>(v.get<double>());  // 4.0 is an integer, as in JSON Schema
  } else {
    fail(key, "expected an integer, found " + describe_found(v));
  }
  if (n < min || n > max) {
    const std::string bound = max == std::numeric_limits<int>::max() || max == std::numeric_limits<int64_t>::max()
                                  ? ">= " + std::to_string(min)
                                  : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    fail(key, "expected an integer " + bound + ", found " + std::to_string(n));
  }
  return n;
}

double ObjectReader::number(const std::string& key, Range range, std::optional<double> fallback) const {
  const json* found = find(key);
  if (!found && fallback) return *fallback;
  const json& v = require(key);
  if (!v.is_number()) fail(key, "expected a number, found " + describe_found(v));
  const double d = v.get<double>();
  if (!range.contains(d)) fail(key, "expected a number " + range.describe() + ", found " + format_number(d));
  return d;
}

bool ObjectReader::boolean(const std::string& key, std::optional<bool> fallback) const {
  const json* found = find(key);
  if (!found && fallback) return *fallback;
  const json& v = require(key);
  if (!v.is_boolean()) fail(key, "expected true or false, found " + describe_found(v));
  return v.get<bool>();
}

std::optional<bool> ObjectReader::optional_boolean(const std::string& key) const {
  const json* found = find(key);
  if (!found || found->is_null()) return std::nullopt;
  return boolean(key);
}

double ObjectReader::quantity(const std::string& key, units::Dimension dimension, Range range,
                              std::optional<double> fallback_si) const {
  const json* found = find(key);
  if (!found && fallback_si) return *fallback_si;
  const json& v = require(key);
  if (!v.is_string()) {
    // Bare numbers are refused: "snic_bw": 400 is ambiguous (bits? bytes? Gbps?), and the unit is the check.
    fail(key, "expected " + units::describe(dimension) + " as a string with a unit, such as " +
                  units::example_of(dimension) + ", found " + describe_found(v));
  }
  double si = 0;
  try {
    si = units::parse_as(v.get<std::string>(), dimension);
  } catch (const units::UnitError& e) {
    fail(key, e.what());
  }
  if (!range.contains(si)) {
    fail(key, "expected " + units::describe(dimension) + " " + range.describe() + " (SI units), found \"" +
                  v.get<std::string>() + "\"");
  }
  if (dimension == units::Dimension::Duration && si > units::kMaxDurationSeconds)
    fail(key, "expected a duration a run can reach, at most 1e9 s (~31.7 years, the simulator's horizon), found \"" +
                  v.get<std::string>() + "\"; write e.g. \"30 s\" or \"2 h\"");
  return si;
}

ObjectReader ObjectReader::object(const std::string& key, std::initializer_list<const char*> allowed,
                                  bool required) const {
  const json* found = find(key);
  if (!found && !required) return ObjectReader(empty_object(), pointer_join(pointer_, key), origins_, allowed);
  return ObjectReader(require(key), pointer_join(pointer_, key), origins_, allowed);
}

void ObjectReader::string_map(const std::string& key) const {
  const json* found = find(key);
  if (!found) return;
  if (!found->is_object()) fail(key, "expected an object of strings, found " + describe_found(*found));
  for (const auto& [k, v] : found->items()) {
    if (!v.is_string()) {
      throw InputError(origins_.where(pointer_join(pointer_join(pointer_, key), k)),
                       "expected a string, found " + describe_found(v));
    }
  }
}

}  // namespace dualpath
