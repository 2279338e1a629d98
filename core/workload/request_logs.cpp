#include "core/workload/request_logs.hpp"

#include <cctype>

#include "core/config/input_error.hpp"
#include "core/workload/csv_rows.hpp"
#include "core/workload/json_fields.hpp"
#include "core/workload/trace_io.hpp"

namespace dualpath {

namespace {

// Days from 1970-01-01 to the given civil date (proleptic Gregorian; H. Hinnant's days_from_civil algorithm).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void add_request(RequestLogConversion& out, const std::string& id, double arrival, int64_t input, int64_t output) {
  out.clamped += input < 1 || output < 1;
  Trajectory t;
  t.id = id;
  t.arrival = arrival;
  t.rounds.push_back(Round{std::max<int64_t>(1, input), std::max<int64_t>(1, output), 0.0});
  out.trace.trajectories.push_back(std::move(t));
}

void check_order(const CsvRows& csv, double t, double previous, const char* column) {
  if (t < previous)
    throw InputError(csv.where(), std::string(column) + ": expected non-decreasing times, found " + format_decimal(t) +
                                      " s after " + format_decimal(previous) + " s");
}

void check_not_empty(const RequestLogConversion& out, const std::string& path, const char* what) {
  if (out.trace.trajectories.empty())
    throw InputError(path, std::string("expected at least one ") + what + " request to replay, found none");
}

}  // namespace

double parse_utc_timestamp(const std::string& s) {
  // YYYY-MM-DD HH:MM:SS, then optionally '.' and digits.
  auto digits = [&](size_t at, size_t n, int64_t& v) {
    if (at + n > s.size()) return false;
    v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
      v = v * 10 + (s[i] - '0');
    }
    return true;
  };
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  if (!digits(0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(5, 2, mo) || s[7] != '-' || !digits(8, 2, d) ||
      (s[10] != ' ' && s[10] != 'T') || !digits(11, 2, h) || s[13] != ':' || !digits(14, 2, mi) || s[16] != ':' ||
      !digits(17, 2, se))
    return -1;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 60) return -1;
  // A real calendar date: 2023-02-30 is no date (not March 2).
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (d > kDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) return -1;
  size_t at = 19;
  double fraction = 0;
  if (at < s.size() && s[at] == '.') {
    double scale = 0.1;
    size_t i = at + 1;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, scale /= 10) fraction += (s[i] - '0') * scale;
    if (i == at + 1) return -1;  // a '.' without digits
    at = i;
  }
  // An optional zone: Z, or +HH:MM / -HH:MM (the Azure 2024 files write "+00:00"); the time is taken back to UTC.
  int64_t offset = 0;
  if (at < s.size()) {
    if (s[at] == 'Z' && at + 1 == s.size()) {
      at += 1;
    } else if ((s[at] == '+' || s[at] == '-') && s.size() == at + 6 && s[at + 3] == ':') {
      int64_t oh = 0, om = 0;
      if (!digits(at + 1, 2, oh) || !digits(at + 4, 2, om) || oh > 23 || om > 59) return -1;
      offset = (s[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
      at += 6;
    }
    if (at != s.size()) return -1;
  }
  return static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset) + fraction;
}

RequestLogConversion convert_azure(const std::string& path) {
  CsvRows csv(path, "Azure LLM inference trace", {"TIMESTAMP", "ContextTokens", "GeneratedTokens"});
  RequestLogConversion out;
  std::vector<std::string> f;
  double first = -1, previous = 0;
  while (csv.next(f)) {
    ++out.requests;
    const double at = parse_utc_timestamp(f[0]);
    if (at < 0)
      throw InputError(csv.where(), "TIMESTAMP: expected a time like 2023-11-16 18:15:46.6805900, found '" + f[0] + "'");
    if (first < 0) first = at;
    check_order(csv, at - first, previous, "TIMESTAMP");
    if (at - first > workload::kMaxTraceSeconds)
      throw InputError(csv.where(), "TIMESTAMP: expected a time within a year (" + format_decimal(workload::kMaxTraceSeconds) +
                                        " s) of the first row's, found " + format_decimal(at - first) + " s after it");
    previous = at - first;
    const int64_t context = csv.integer(f[1], "ContextTokens", 0, workload::kMaxTokens);
    const int64_t generated = csv.integer(f[2], "GeneratedTokens", 0, workload::kMaxTokens);
    add_request(out, "az-" + csv.where().substr(csv.path().size() + 1), previous, context, generated);
  }
  check_not_empty(out, path, "Azure");
  return out;
}

RequestLogConversion convert_burstgpt(const std::string& path) {
  CsvRows csv(path, "BurstGPT trace",
              {"Timestamp", "Model", "Request tokens", "Response tokens", "Total tokens", "Log Type"});
  RequestLogConversion out;
  std::vector<std::string> f;
  double previous = 0;
  while (csv.next(f)) {
    ++out.requests;
    const double at = csv.number(f[0], "Timestamp", 0, workload::kMaxTraceSeconds);
    check_order(csv, at, previous, "Timestamp");
    previous = at;
    if (f[1].empty()) throw InputError(csv.where(), "Model: expected a model name (e.g. ChatGPT, GPT-4), found none");
    const int64_t request = csv.integer(f[2], "Request tokens", 0, workload::kMaxTokens);
    const int64_t response = csv.integer(f[3], "Response tokens", 0, workload::kMaxTokens);
    csv.integer(f[4], "Total tokens", 0, 2 * workload::kMaxTokens);
    if (f[5].empty()) throw InputError(csv.where(), "Log Type: expected e.g. 'Conversation log' or 'API log', found none");
    if (response == 0) {  // a failed request (BurstGPT_without_fails_*.csv leaves these out)
      ++out.dropped;
      continue;
    }
    ++out.models[f[1]];
    add_request(out, "bg-" + csv.where().substr(csv.path().size() + 1), at, request, response);
  }
  check_not_empty(out, path, "BurstGPT");
  return out;
}

}  // namespace dualpath
