#include "core/calibrate/bench_results.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/config/input_error.hpp"
#include "core/config/object_reader.hpp"

namespace dualpath {
namespace {

using nlohmann::json;

// A positive finite number at `key`, or the first of `fallbacks` present.
double field(const json& o, const std::string& where, std::initializer_list<const char*> keys, const char* what,
             bool required = true) {
  for (const char* k : keys) {
    const auto it = o.find(k);
    if (it == o.end() || it->is_null()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0)
      throw InputError(where + ": /" + k, std::string("expected ") + what + " (a number > 0), found " + describe_found(*it));
    return it->get<double>();
  }
  if (!required) return 0;
  std::string names;
  for (const char* k : keys) names += (names.empty() ? "\"" : " or \"") + std::string(k) + "\"";
  throw InputError(where + ": /" + *keys.begin(), "missing: expected " + names + " (" + what + ")");
}

BenchPoint point_of(const json& o, const std::string& where) {
  if (!o.is_object()) throw InputError(where, "expected a benchmark result object, found " + describe_found(o));
  BenchPoint p;
  p.where = where;
  const double completed = field(o, where, {"completed"}, "the number of completed requests");
  p.input_len = field(o, where, {"total_input_tokens"}, "the input tokens of all completed requests") / completed;
  p.output_len = field(o, where, {"total_output_tokens"}, "the output tokens of all completed requests") / completed;
  // TPOT needs two or more output tokens per request; a shorter run measures no decode pace.
  if (p.output_len < 2)
    throw InputError(where + ": /total_output_tokens", "expected at least 2 output tokens per request (TPOT is the "
                                                       "pace after the first), found " + std::to_string(p.output_len));
  p.ttft = field(o, where, {"median_ttft_ms", "mean_ttft_ms"}, "TTFT in milliseconds") / 1e3;
  p.tpot = field(o, where, {"median_tpot_ms", "mean_tpot_ms"}, "TPOT in milliseconds") / 1e3;
  // The load: SGLang's measured mean concurrency; else the client's cap; else Little's law on the run.
  p.concurrency = field(o, where, {"concurrency", "max_concurrency"}, "requests in flight", /*required=*/false);
  if (p.concurrency <= 0) {
    const double rate = field(o, where, {"request_throughput"}, "requests per second", false);
    const double e2e = field(o, where, {"mean_e2e_latency_ms", "mean_e2el_ms"}, "mean end-to-end latency in ms", false);
    if (rate <= 0 || e2e <= 0)
      throw InputError(where + ": /max_concurrency",
                       "missing: expected \"concurrency\" or \"max_concurrency\", or \"request_throughput\" with "
                       "\"mean_e2e_latency_ms\" / \"mean_e2el_ms\" (the load the pace was measured at)");
    p.concurrency = rate * e2e / 1e3;
  }
  return p;
}

// One JSON document, or an InputError at `where` saying which file format expected it.
json parse_result(const std::string& text, const std::string& where, const char* expected) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(where, std::string("expected ") + expected + ", found invalid JSON: " + e.what());
  }
}

}  // namespace

std::vector<BenchPoint> read_bench_results(const std::string& path, BenchFormat format) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "cannot open the benchmark result file");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  if (format == BenchFormat::Auto)
    format = path.size() > 6 && path.substr(path.size() - 6) == ".jsonl" ? BenchFormat::Sglang : BenchFormat::Vllm;
  std::vector<BenchPoint> points;
  if (format == BenchFormat::Vllm) {
    points.push_back(point_of(parse_result(text, path, "one JSON object (vllm bench serve --save-result)"), path));
    return points;
  }
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n);
    points.push_back(point_of(parse_result(line, where, "one JSON object per line (sglang.bench_serving --output-file)"),
                              where));
  }
  if (points.empty()) throw InputError(path, "expected one or more result lines, found none");
  return points;
}

}  // namespace dualpath
