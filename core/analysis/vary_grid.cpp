#include "core/analysis/vary_grid.hpp"

#include <cmath>
#include <set>

#include "core/analysis/plan_splits.hpp"
#include "core/config/command_values.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"

namespace dualpath::analysis {

VaryAxis parse_vary(const std::string& text) {
  check_command_text(text, "--vary");
  const std::string where = "--vary " + text;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(where, "expected KEY=V1,V2,... (a --set path and the values to try, e.g. topology.snic_bw=200 "
                            "Gbps,400 Gbps)");
  VaryAxis a;
  a.key = text.substr(0, eq);
  std::set<std::string> seen;
  size_t start = eq + 1;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string v = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw InputError(where, "expected a non-empty value between commas");
    if (!seen.insert(v).second) throw InputError(where, "value \"" + v + "\" appears twice");
    a.values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return a;
}

std::vector<Variant> variant_grid(const std::vector<VaryAxis>& axes) {
  std::set<std::string> keys;
  for (const auto& a : axes)
    if (!keys.insert(a.key).second) throw InputError("--vary " + a.key, "this key is varied twice; list all its values in one --vary");
  std::vector<Variant> grid{Variant{}};
  for (const auto& a : axes) {
    std::vector<Variant> next;
    for (const auto& g : grid)
      for (const auto& v : a.values) {
        Variant n = g;
        n.label += (n.label.empty() ? "" : "; ") + a.key + "=" + v;
        n.values.push_back(v);
        n.overrides.push_back(a.key + "=" + v);
        next.push_back(std::move(n));
      }
    grid = std::move(next);
  }
  return grid;
}

std::string variant_slug(const Variant& v) {
  std::string name;
  for (const auto& o : v.overrides) {
    if (!name.empty()) name += "__";
    for (char c : o) {
      const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '=' || c == '-';
      name += keep ? c : '_';
    }
  }
  return name;
}

Scenario load_variant(const std::string& scenario, std::vector<std::string> overrides, const Variant& v,
                      const std::vector<std::string>& overlays) {
  overrides.insert(overrides.end(), v.overrides.begin(), v.overrides.end());
  try {
    return load_scenario(scenario, overrides, overlays);
  } catch (const InputError& e) {
    const std::string m = e.what();
    for (const auto& o : v.overrides)
      if (m.rfind("--set " + o + ": ", 0) == 0) throw InputError("--vary " + o, m.substr(o.size() + 8));
    throw;
  }
}

int budget_nodes(long long gpus, int gpus_per_node) {
  const long long nodes = gpus_per_node > 0 ? gpus / gpus_per_node : 0;
  if (nodes < 2)
    throw InputError("--budget " + std::to_string(gpus),
                     "expected at least 2 nodes' worth of GPUs (2 x " + std::to_string(gpus_per_node) + ")");
  if (nodes > kMaxPlanNodes)
    throw InputError("--budget " + std::to_string(gpus), "expected at most " + std::to_string(kMaxPlanNodes) +
                                                             " nodes' worth of GPUs, found " + std::to_string(nodes) +
                                                             " nodes of " + std::to_string(gpus_per_node));
  return static_cast<int>(nodes);
}

BestTwo best_two(const std::vector<std::optional<double>>& values, bool lower_better) {
  BestTwo r;
  auto better = [&](size_t i, const std::optional<size_t>& than) {
    return !than || (lower_better ? *values[i] < *values[*than] : *values[i] > *values[*than]);
  };
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) continue;
    if (better(i, r.best)) r.runner_up = r.best, r.best = i;
    else if (better(i, r.runner_up)) r.runner_up = i;
  }
  return r;
}

bool capacity_ahead(double best, double runner_up_lowest_failing) {
  return std::isfinite(runner_up_lowest_failing) && best >= runner_up_lowest_failing;
}

bool jct_ahead(double best, double runner_up) { return runner_up >= best * (1 + kJctTieMargin); }

}  // namespace dualpath::analysis
