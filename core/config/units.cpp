// The one units parser (grammar in units.hpp).
#include "core/config/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <utility>

namespace dualpath::units {
namespace {

struct Prefix {
  std::string_view text;
  double factor;
};

// k and K both mean 1e3: "KB" is common in hardware data sheets and the paper digest ("40 KB/token").
constexpr std::array<Prefix, 8> kDecimal{{{"", 1.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9},
                                          {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
constexpr std::array<Prefix, 6> kBinary{{{"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40},
                                         {"Pi", 0x1p50}, {"Ei", 0x1p60}}};

// A unit is <prefix><base>; bases are tried longest first so "bps" is not read as "s" with prefix "bp".
struct Base {
  std::string_view text;
  Dimension dimension;
  double factor;        // SI value of one unprefixed unit (a bit is 1/8 byte)
  bool binary_allowed;  // binary prefixes only make sense for byte quantities
};
constexpr std::array<Base, 7> kBases{{
    {"FLOP/s", Dimension::FlopRate, 1.0, false},
    {"FLOPS", Dimension::FlopRate, 1.0, false},
    {"B/s", Dimension::Bandwidth, 1.0, true},
    {"b/s", Dimension::Bandwidth, 0.125, true},
    {"bps", Dimension::Bandwidth, 0.125, true},
    {"B", Dimension::Bytes, 1.0, true},
    {"b", Dimension::Bytes, 0.125, true},
}};

// Time units are matched whole: SI prefixes other than m/u/n are never useful for durations here.
constexpr std::array<std::pair<std::string_view, double>, 8> kTimes{{{"s", 1.0},
                                                                     {"ms", 1e-3},
                                                                     {"us", 1e-6},
                                                                     {"\u00b5s", 1e-6},  // micro sign
                                                                     {"\u03bcs", 1e-6},  // Greek mu
                                                                     {"ns", 1e-9},
                                                                     {"min", 60.0},
                                                                     {"h", 3600.0}}};

constexpr std::string_view kAcceptedUnits =
    "B, KB, MiB, GB, ... (bytes); Gbps, Gb/s, GB/s, GiB/s, ... (bandwidth); s, ms, us, ns, min, h (duration); "
    "TFLOPS, PFLOP/s, ... (FLOP rate)";

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Returns the SI factor and dimension of a unit, or throws.
std::pair<double, Dimension> resolve_unit(std::string_view unit, std::string_view whole) {
  for (const auto& [name, factor] : kTimes) {
    if (unit == name) return {factor, Dimension::Duration};
  }
  for (const Base& base : kBases) {
    if (unit.size() < base.text.size() || unit.substr(unit.size() - base.text.size()) != base.text) continue;
    const std::string_view prefix = unit.substr(0, unit.size() - base.text.size());
    for (const Prefix& p : kDecimal) {
      if (prefix == p.text) return {p.factor * base.factor, base.dimension};
    }
    for (const Prefix& p : kBinary) {
      if (prefix != p.text) continue;
      if (!base.binary_allowed) {
        throw UnitError(quoted(whole) + ": binary prefix \"" + std::string(prefix) + "\" is not allowed for " +
                        describe(base.dimension) + " (use k, M, G, T, P)");
      }
      return {p.factor * base.factor, base.dimension};
    }
  }
  throw UnitError(quoted(whole) + ": unknown unit \"" + std::string(unit) + "\"; accepted units are " +
                  std::string(kAcceptedUnits));
}

std::string example(Dimension d) {
  switch (d) {
    case Dimension::Bytes: return "\"80 GiB\" or \"656 B\"";
    case Dimension::Bandwidth: return "\"400 Gbps\" or \"50 GB/s\"";
    case Dimension::Duration: return "\"300 ms\" or \"5 s\"";
    case Dimension::FlopRate: return "\"989 TFLOPS\"";
  }
  return "";
}

}  // namespace

std::string example_of(Dimension d) { return example(d); }

std::string describe(Dimension d) {
  switch (d) {
    case Dimension::Bytes: return "a byte size";
    case Dimension::Bandwidth: return "a bandwidth";
    case Dimension::Duration: return "a duration";
    case Dimension::FlopRate: return "a FLOP rate";
  }
  return "a quantity";
}

namespace {

// The unit a bare number most likely meant, for the hint of a missing unit.
const char* likely_unit(std::optional<Dimension> d) {
  if (!d) return "GB";
  switch (*d) {
    case Dimension::Bytes: return "GB";
    case Dimension::Bandwidth: return "Gbps";
    case Dimension::Duration: return "s";
    case Dimension::FlopRate: return "TFLOPS";
  }
  return "GB";
}

Quantity parse_quantity_for(std::string_view text, std::optional<Dimension> expected) {
  const std::string_view s = trim(text);
  if (s.empty()) throw UnitError("empty string where a quantity with a unit was expected");
  if (s.front() == '-') throw UnitError(quoted(text) + ": negative quantities are not allowed");
  if (s.front() == '+') throw UnitError(quoted(text) + ": write the number without a sign");

  double number = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec == std::errc::result_out_of_range) throw UnitError(quoted(text) + ": number out of range");
  if (ec != std::errc() || end == s.data()) {
    throw UnitError(quoted(text) + ": expected a number followed by a unit, such as \"400 Gbps\"");
  }
  if (!std::isfinite(number)) throw UnitError(quoted(text) + ": the number must be finite");

  const std::string_view unit = trim(s.substr(static_cast<size_t>(end - s.data())));
  if (unit.empty()) {
    throw UnitError(quoted(text) + ": missing unit; write e.g. \"" + std::string(s) + " " + likely_unit(expected) +
                    "\" (accepted units: " + std::string(kAcceptedUnits) + ")");
  }
  const auto [factor, dimension] = resolve_unit(unit, text);
  const double value = number * factor;
  if (!std::isfinite(value)) throw UnitError(quoted(text) + ": value out of range");
  return Quantity{value, dimension};
}

}  // namespace

Quantity parse_quantity(std::string_view text) { return parse_quantity_for(text, std::nullopt); }

double parse_as(std::string_view text, Dimension expected) {
  Quantity q;
  try {
    q = parse_quantity_for(text, expected);
  } catch (const UnitError& e) {
    throw UnitError("expected " + describe(expected) + " such as " + example(expected) + ", found " + e.what());
  }
  if (q.dimension != expected) {
    throw UnitError("expected " + describe(expected) + " such as " + example(expected) + ", found " +
                    quoted(text) + ", which is " + describe(q.dimension));
  }
  return q.value;
}

}  // namespace dualpath::units
