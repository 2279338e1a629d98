// Strict, typed access to one JSON object of a configuration file.
// Every getter checks presence, JSON type, units and range, and every failure is an InputError naming the file
// the value came from, its JSON pointer, what was expected and what was found. The constructor rejects keys
// outside the object's declared key list up front, so a misspelt optional key is never silently ignored.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/origins.hpp"
#include "core/config/units.hpp"

namespace dualpath {

// Accepted interval of a number; `min_open` and `max_open` make a bound exclusive ("must be > 0", "< 1").
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;

  static Range positive() { return {0.0, std::numeric_limits<double>::infinity(), true}; }
  static Range non_negative() { return {0.0, std::numeric_limits<double>::infinity(), false}; }
  static Range fraction() { return {0.0, 1.0, true}; }  // (0, 1]
  static Range unit_interval() { return {0.0, 1.0, false}; }  // [0, 1]
  static Range open_fraction() { return {0.0, 1.0, true, true}; }  // (0, 1)
  bool contains(double v) const { return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max); }
  std::string describe() const;
};

// JSON pointer syntax for one key ("/" and "~" escaped as RFC 6901 says).
std::string pointer_join(const std::string& parent, const std::string& key);

class ObjectReader {
 public:
  // Throws unless `value` is an object whose keys are all in `allowed`.
  ObjectReader(const nlohmann::json& value, std::string pointer, const Origins& origins,
               std::initializer_list<const char*> allowed);

  bool has(const std::string& key) const;
  const std::string& pointer() const { return pointer_; }
  const Origins& origins() const { return origins_; }

  std::string string(const std::string& key) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                     std::optional<std::string> fallback = std::nullopt) const;

  int64_t integer(const std::string& key, int64_t min, int64_t max = std::numeric_limits<int>::max(),
                  std::optional<int64_t> fallback = std::nullopt) const;
  double number(const std::string& key, Range range, std::optional<double> fallback = std::nullopt) const;
  bool boolean(const std::string& key, std::optional<bool> fallback = std::nullopt) const;
  std::optional<bool> optional_boolean(const std::string& key) const;  // absent or null = unset

  // A string with a unit ("400 Gbps"), returned in SI base units.
  double quantity(const std::string& key, units::Dimension dimension, Range range,
                  std::optional<double> fallback_si = std::nullopt) const;

  // A nested object (`required` = false: an absent key reads as an empty object, so every field defaults).
  ObjectReader object(const std::string& key, std::initializer_list<const char*> allowed, bool required = true) const;

  // A free-form {"field": "citation"} object; only its shape is checked.
  void string_map(const std::string& key) const;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

 private:
  const nlohmann::json* find(const std::string& key) const;  // nullptr when absent
  const nlohmann::json& require(const std::string& key) const;
  void check_declared(const std::string& key) const;

  const nlohmann::json& value_;
  std::string pointer_;
  const Origins& origins_;
  std::set<std::string> allowed_;
};

// A short one-line rendering of a found value for messages: its JSON type and (truncated) text.
std::string describe_found(const nlohmann::json& value);

}  // namespace dualpath
