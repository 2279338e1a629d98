#include "core/metrics/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "core/config/input_error.hpp"
#include "core/config/object_reader.hpp"

namespace dualpath {
namespace {

using nlohmann::json;

struct MetricDef {
  std::string name;
  std::string group;
  std::string unit;
  std::string pointer;  // in summary.json
};

// Table order; bytes classes are appended from the summaries themselves (the core may add classes).
const std::vector<MetricDef>& fixed_metrics() {
  static const std::vector<MetricDef> kMetrics = {
      {"jct", "jct", "s", "/results/jct_s"},
      {"prompt_tokens_per_s", "throughput", "tokens/s", "/results/prompt_tokens_per_s"},
      {"generated_tokens_per_s", "throughput", "tokens/s", "/results/generated_tokens_per_s"},
      {"ttft_p50", "latency", "s", "/results/ttft_s/p50"},
      {"ttft_p99", "latency", "s", "/results/ttft_s/p99"},
      {"ttst_p50", "latency", "s", "/results/ttst_s/p50"},
      {"ttst_p99", "latency", "s", "/results/ttst_s/p99"},
      {"tpot_p50", "latency", "s", "/results/tpot_s/p50"},
      {"tpot_p99", "latency", "s", "/results/tpot_s/p99"},
  };
  return kMetrics;
}

double default_tolerance(const std::string& group) {
  // A run's JCT and throughput are what a calibrated simulator should get right; tail latencies depend on
  // scheduling noise and get more room; byte counts are decided by the same core code on both sides.
  if (group == "latency") return 0.25;
  if (group == "bytes") return 0.01;
  return 0.10;
}

const json* at(const json& doc, const std::string& pointer) {
  const json::json_pointer p(pointer);
  return doc.contains(p) ? &doc.at(p) : nullptr;
}

double number_at(const json& doc, const std::string& file, const std::string& pointer) {
  const json* v = at(doc, pointer);
  if (!v) throw InputError(file + ": " + pointer, "missing; expected a number (is this a dualpath summary.json?)");
  if (!v->is_number()) throw InputError(file + ": " + pointer, "expected a number, found " + describe_found(*v));
  // Every compared metric (a time, a rate, a byte count) is a finite quantity >= 0: a negative JCT would otherwise
  // pass a gate as an improvement.
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < 0)
    throw InputError(file + ": " + pointer, "expected a finite number >= 0, found " + v->dump());
  return x;
}

// The bytes classes of one summary, checked to be numbers.
std::set<std::string> byte_classes(const json& doc, const std::string& file) {
  const json* bytes = at(doc, "/results/bytes");
  if (!bytes || !bytes->is_object())
    throw InputError(file + ": /results/bytes", bytes ? "expected an object, found " + describe_found(*bytes)
                                                      : "missing; expected an object of byte counts");
  std::set<std::string> out;
  for (const auto& [k, v] : bytes->items()) {
    if (!v.is_number())
      throw InputError(file + ": " + pointer_join("/results/bytes", k), "expected a number, found " + describe_found(v));
    out.insert(k);
  }
  return out;
}

// Refuses to compare runs of different experiments: the numbers would differ for reasons no tolerance covers.
void check_comparable(const json& sim, const std::string& sim_file, const json& measured,
                      const std::string& measured_file) {
  for (const auto* doc : {&sim, &measured}) {
    const std::string& file = doc == &sim ? sim_file : measured_file;
    if (!doc->is_object()) throw InputError(file + ": /", "expected a summary object, found " + describe_found(*doc));
    const json* p = at(*doc, "/policy");
    if (!p || !p->is_string())
      throw InputError(file + ": /policy", p ? "expected a string, found " + describe_found(*p) : "missing");
    const json* r = at(*doc, "/results/rounds");
    if (!r || !r->is_number_integer())
      throw InputError(file + ": /results/rounds", r ? "expected an integer, found " + describe_found(*r) : "missing");
  }
  const auto sp = sim["policy"].get<std::string>(), mp = measured["policy"].get<std::string>();
  if (sp != mp)
    throw InputError(sim_file + ": /policy", "the simulated run used policy \"" + sp + "\" but " + measured_file +
                                                 " used \"" + mp + "\"; compare runs of the same policy");
  const auto sr = sim["results"]["rounds"].get<int64_t>(), mr = measured["results"]["rounds"].get<int64_t>();
  if (sr != mr)
    throw InputError(sim_file + ": /results/rounds", "the simulated run finished " + std::to_string(sr) + " rounds but " +
                                                         measured_file + " finished " + std::to_string(mr) +
                                                         "; compare runs of the same workload");
}

std::string known_names(const std::vector<MetricDef>& metrics) {
  std::string s;
  for (const auto& g : metric_groups()) s += (s.empty() ? "" : ", ") + g;
  for (const auto& m : metrics)
    if (std::find(metric_groups().begin(), metric_groups().end(), m.name) == metric_groups().end()) s += ", " + m.name;
  return s;
}

}  // namespace

ToleranceSetting parse_tolerance(const std::string& text, const std::string& origin) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(origin, "expected METRIC=FRACTION, e.g. jct=0.05 or latency=30%");
  ToleranceSetting t;
  t.name = text.substr(0, eq);
  t.origin = origin;
  std::string value = text.substr(eq + 1);
  const bool percent = !value.empty() && value.back() == '%';
  if (percent) value.pop_back();
  char* end = nullptr;
  const double v = value.empty() ? std::nan("") : std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(v) || v < 0)
    throw InputError(origin, "expected a non-negative fraction (0.1) or percentage (10%), found \"" +
                                 text.substr(eq + 1) + "\"");
  t.fraction = percent ? v / 100 : v;
  return t;
}

const std::vector<std::string>& metric_groups() {
  static const std::vector<std::string> kGroups = {"jct", "throughput", "latency", "bytes"};
  return kGroups;
}

bool Comparison::ok() const {
  return std::all_of(metrics.begin(), metrics.end(), [](const MetricComparison& m) { return m.ok; });
}

Comparison compare_summaries(const json& sim, const std::string& sim_file, const json& measured,
                             const std::string& measured_file, const CompareOptions& options) {
  check_comparable(sim, sim_file, measured, measured_file);

  std::vector<MetricDef> metrics = fixed_metrics();
  const auto sim_bytes = byte_classes(sim, sim_file), measured_bytes = byte_classes(measured, measured_file);
  // Storage traffic first (what the read-path choice decides), then the other classes by name.
  std::vector<std::string> all_bytes = {"storage_read", "storage_read_pe_snic", "storage_read_de_snic", "storage_write"};
  std::erase_if(all_bytes, [&](const std::string& k) { return !sim_bytes.count(k) && !measured_bytes.count(k); });
  std::set<std::string> rest = sim_bytes;
  rest.insert(measured_bytes.begin(), measured_bytes.end());
  for (const auto& k : rest)
    if (std::find(all_bytes.begin(), all_bytes.end(), k) == all_bytes.end()) all_bytes.push_back(k);
  for (const auto& k : all_bytes) {
    // A class on one side only means the two summaries come from different formats; say which file lacks it.
    if (!sim_bytes.count(k) || !measured_bytes.count(k))
      throw InputError((sim_bytes.count(k) ? measured_file : sim_file) + ": " + pointer_join("/results/bytes", k),
                       "missing, but the other summary has it; compare summaries of the same format");
    metrics.push_back({"bytes." + k, "bytes", "B", pointer_join("/results/bytes", k)});
  }

  auto known = [&](const std::string& name) {
    return std::find(metric_groups().begin(), metric_groups().end(), name) != metric_groups().end() ||
           std::any_of(metrics.begin(), metrics.end(), [&](const MetricDef& m) { return m.name == name; });
  };
  std::map<std::string, double> by_group, by_metric;
  for (const auto& t : options.tolerances) {
    if (!known(t.name))
      throw InputError(t.origin, "unknown metric \"" + t.name + "\"; expected one of " + known_names(metrics));
    const bool is_group =
        std::find(metric_groups().begin(), metric_groups().end(), t.name) != metric_groups().end() &&
        std::none_of(metrics.begin(), metrics.end(), [&](const MetricDef& m) { return m.name == t.name; });
    (is_group ? by_group : by_metric)[t.name] = t.fraction;
  }
  for (const auto& name : options.only) {
    if (!known(name))
      throw InputError(options.only_origin, "unknown metric \"" + name + "\"; expected one of " + known_names(metrics));
  }
  auto selected = [&](const MetricDef& m) {
    if (options.only.empty()) return true;
    return std::any_of(options.only.begin(), options.only.end(),
                       [&](const std::string& n) { return n == m.name || n == m.group; });
  };

  Comparison c;
  c.policy = sim["policy"].get<std::string>();
  for (const auto& def : metrics) {
    if (!selected(def)) continue;
    MetricComparison m;
    m.metric = def.name;
    m.group = def.group;
    m.unit = def.unit;
    m.sim = number_at(sim, sim_file, def.pointer);
    m.measured = number_at(measured, measured_file, def.pointer);
    m.abs_error = m.sim - m.measured;
    m.tolerance = by_metric.count(def.name)  ? by_metric[def.name]
                  : by_group.count(def.group) ? by_group[def.group]
                                              : default_tolerance(def.group);
    // A hair of slack so that an error of exactly the tolerance (10.000000000000009%) is not a failure.
    constexpr double kRounding = 1e-9;
    // The error that counts: its size, or, in a gate, how far it moved the worse way (an improvement counts 0).
    const int dir = options.one_sided ? worse_direction(def.group) : 0;
    auto counted = [&](double e) { return dir == 0 ? std::abs(e) : std::max(0.0, dir * e); };
    if (m.measured != 0) {
      m.rel_error = m.abs_error / m.measured;
      m.ok = counted(*m.rel_error) <= m.tolerance + kRounding;
    } else {
      m.ok = counted(m.sim) <= m.tolerance;
    }
    c.metrics.push_back(m);
  }
  return c;
}

int worse_direction(const std::string& group) {
  if (group == "jct" || group == "latency") return 1;
  if (group == "throughput") return -1;
  return 0;
}

json to_json(const MetricComparison& m) {
  return {{"metric", m.metric},
          {"group", m.group},
          {"unit", m.unit},
          {"simulated", m.sim},
          {"measured", m.measured},
          {"abs_error", m.abs_error},
          {"rel_error", m.rel_error ? json(*m.rel_error) : json(nullptr)},
          {"tolerance", m.tolerance},
          {"ok", m.ok}};
}

}  // namespace dualpath
