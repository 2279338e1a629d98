// Comparing two runs' summary.json files metric by metric: a simulated run against a measured (hardware) one.
// Used by `dualpath validate` (cli/validate_cmd.cpp, docs/validation.md).
//
// Metrics and their groups (default tolerance, as a fraction of the measured value):
//   jct                                             jct         0.10   results.jct_s
//   prompt_tokens_per_s, generated_tokens_per_s     throughput  0.10   results.*
//   ttft_p50 ttft_p99 ttst_p50 ttst_p99 tpot_p50 tpot_p99
//                                                   latency     0.25   results.{ttft,ttst,tpot}_s.{p50,p99}
//   bytes.<class> for every key of results.bytes    bytes       0.01   results.bytes.<class>
// A metric is ok when |sim - measured| / measured <= tolerance. When the measured value is 0 there is no relative
// error: both 0 is ok, otherwise the tolerance is read as an absolute bound on |sim| in the metric's unit.
// As a regression gate (`one_sided`: the second run is a baseline, the first a new run of the same question), a
// metric fails only when it moved the worse way beyond its tolerance: times up (jct, latency), throughput down;
// bytes either way (a change in what moves is a change in behaviour).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dualpath {

// A --tol or --only entry: a metric name or a group name, with where it came from for messages.
struct ToleranceSetting {
  std::string name;
  double fraction = 0;
  std::string origin;  // "--tol jct=0.05"
};

struct CompareOptions {
  // Applied over the defaults; a metric's own setting wins over its group's, whatever the order.
  std::vector<ToleranceSetting> tolerances;
  std::vector<std::string> only;  // metric or group names to check; empty = every metric
  std::string only_origin;        // "--only ..." for messages
  bool one_sided = false;         // a regression gate: only a move the worse way fails
};

// +1 when a higher value of metrics in `group` is worse (times), -1 when lower is worse (throughput), 0 when a
// move either way counts (bytes).
int worse_direction(const std::string& group);

// Parses "METRIC=FRACTION" ("jct=0.05", "latency=30%"); throws InputError naming `origin` when malformed.
ToleranceSetting parse_tolerance(const std::string& text, const std::string& origin);

// The group names, in table order: jct, throughput, latency, bytes.
const std::vector<std::string>& metric_groups();

struct MetricComparison {
  std::string metric;
  std::string group;
  std::string unit;                 // "s", "tokens/s", "B"
  double sim = 0;
  double measured = 0;
  double abs_error = 0;             // sim - measured
  std::optional<double> rel_error;  // (sim - measured) / measured; none when measured is 0
  double tolerance = 0;
  bool ok = false;
};

struct Comparison {
  std::string policy;
  std::vector<MetricComparison> metrics;
  bool ok() const;
};

// Compares two summaries. `sim_file` and `measured_file` name them in messages. Throws InputError (naming the file
// and JSON pointer) when a summary lacks a metric or has the wrong shape, when the two runs are not comparable
// (different policy or number of rounds), and when the options name an unknown metric or group.
Comparison compare_summaries(const nlohmann::json& sim, const std::string& sim_file, const nlohmann::json& measured,
                             const std::string& measured_file, const CompareOptions& options);

nlohmann::json to_json(const MetricComparison& m);

}  // namespace dualpath
