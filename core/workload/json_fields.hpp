// Strict field readers shared by the trace readers (native and Mooncake): each returns the value or throws
// InputError(where, "<what was expected>, found <what was found>"), so every bad trace line gets one clear message.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dualpath::workload {

// A short description of a JSON value for messages: its type, and the value itself when short.
std::string describe(const nlohmann::json& v);

// An integer in [lo, hi]; rejects floats (even 3.0), strings, booleans and out-of-range values.
int64_t get_int(const nlohmann::json& v, const std::string& where, const std::string& name, int64_t lo, int64_t hi);

// A finite number (integer or float) in [lo, hi].
double get_number(const nlohmann::json& v, const std::string& where, const std::string& name, double lo, double hi);

// Parses one line as a JSON object; malformed JSON or a non-object is an InputError at `where`.
nlohmann::json parse_object_line(const std::string& line, const std::string& where);

// Rejects any key of `obj` not in `allowed` (a typo must not be silently ignored).
void reject_unknown_keys(const nlohmann::json& obj, const std::string& where,
                         std::initializer_list<const char*> allowed);

// The request-per-line readers (Mooncake, Bailian): calls f(record, "path:line", line) for every non-blank line of
// `in` (CRLF tolerated), each one JSON object with exactly `keys`, all required ("missing key 'K' (a <what> needs
// ...)"). InputError for a read error or a file without records ("expected at least one <what> ...").
void for_each_record(std::istream& in, const std::string& path, const std::string& what,
                     std::initializer_list<const char*> keys,
                     const std::function<void(const nlohmann::json&, const std::string&, int64_t)>& f);

// An array of integer ids in [0, INT64_MAX] (block hashes); `name` names it in messages ("hash_ids").
std::vector<int64_t> get_ids(const nlohmann::json& v, const std::string& where, const std::string& name);

// Largest token count accepted anywhere (keeps every sum far from int64 overflow).
inline constexpr int64_t kMaxTokens = 1'000'000'000;

// Longest time a trace spans (an arrival, a pause): a year of simulated time, far beyond any run, small enough that
// sums of arrivals and pauses stay exact. The native reader and every converter check it, so a converter never
// writes a trace the reader refuses (issue 68).
inline constexpr double kMaxTraceSeconds = 365.0 * 24 * 3600;

}  // namespace dualpath::workload
