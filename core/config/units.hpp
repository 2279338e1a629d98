// Physical quantities written as text in the configuration files ("400 Gbps", "80 GiB", "300 ms", "989 TFLOPS").
// One parser for all of them, so every file spells units the same way and every value lands in SI base units:
// bytes, bytes per second, seconds, FLOP per second. Dimensionless counts are plain JSON numbers, not strings.
//
// Grammar: <number> [spaces] <unit>, where <number> is a non-negative decimal with optional fraction and
// exponent ("1.2", "5e-3") and <unit> is one of
//   bytes      B | b (bit)                  with a decimal (k K M G T P E) or binary (Ki Mi Gi Ti Pi Ei) prefix
//   bandwidth  B/s | b/s | bps (bit/s)      same prefixes            ("400 Gbps" = 50e9 B/s, "50 GiB/s")
//   duration   s | ms | us | µs | ns | min | h
//   FLOP rate  FLOPS | FLOP/s               decimal prefixes only    ("989 TFLOPS", "1.2 PFLOP/s")
// "K" and "k" both mean 1e3 ("40 KB" = 40,000 B); only the "i" forms are binary.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace dualpath::units {

enum class Dimension { Bytes, Bandwidth, Duration, FlopRate };

// Noun for messages: "a byte size", "a bandwidth", "a duration", "a FLOP rate".
std::string describe(Dimension d);

struct Quantity {
  double value = 0;  // SI base units of `dimension`
  Dimension dimension = Dimension::Bytes;
};

// Thrown for text that is not a quantity, or not one of the expected dimension. The message says what was
// expected and what was found; the caller adds where the text came from.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses any supported quantity; throws UnitError on garbage, unknown units, negative or non-finite values.
// Examples of a dimension's values, quoted, for messages: "\"300 ms\" or \"5 s\"".
std::string example_of(Dimension d);
Quantity parse_quantity(std::string_view text);

// Parses a quantity and requires the given dimension; the message names what was expected and what was found.
double parse_as(std::string_view text, Dimension expected);

// The longest duration a scenario may give (~31.7 years of simulated time): the simulator's horizon, past which a
// run is stopped as unable to progress (sim/simulator.hpp). A duration above it can never give a finite run, so the
// scenario reader refuses it at load, naming the key.
inline constexpr double kMaxDurationSeconds = 1e9;

inline double parse_bytes(std::string_view text) { return parse_as(text, Dimension::Bytes); }
inline double parse_bandwidth(std::string_view text) { return parse_as(text, Dimension::Bandwidth); }
inline double parse_duration(std::string_view text) { return parse_as(text, Dimension::Duration); }
inline double parse_flops(std::string_view text) { return parse_as(text, Dimension::FlopRate); }

}  // namespace dualpath::units
