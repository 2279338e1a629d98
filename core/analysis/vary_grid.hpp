// `--vary KEY=V1,V2,...` axes and their cross product, shared by `dualpath sweep` (one run per combination) and
// `dualpath plan` (every P/D split of every combination); plan's GPU budget (`--budget G`: as many whole nodes
// as G GPUs make, which depends on each variant's GPUs per node) and its choice of the best and runner-up.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config/scenario.hpp"

namespace dualpath::analysis {

struct VaryAxis {
  std::string key;                  // a --set path, e.g. topology.snic_bw
  std::vector<std::string> values;  // as --set values, e.g. "200 Gbps"
};

// Parses "KEY=V1,V2,...". InputError (where "--vary TEXT") on a missing '=', an empty key, an empty or repeated value.
VaryAxis parse_vary(const std::string& text);

struct Variant {
  std::string label;                   // "key=v; key2=w", empty for the scenario as it is
  std::vector<std::string> values;     // one per axis
  std::vector<std::string> overrides;  // "key=v" for --set, one per axis
};

// Every combination of the axes' values, the first axis varying slowest; one empty variant when there are no axes.
// InputError when two axes name the same key.
std::vector<Variant> variant_grid(const std::vector<VaryAxis>& axes);

// A folder name for a variant: its "key=value" overrides joined by "__", characters outside [A-Za-z0-9._=-] as '_'.
// (sweep's point folders; plan prefixes the variant's index, which keeps names unique when two values differ only
// in those characters).
std::string variant_slug(const Variant& v);

// Loads the scenario with `overrides` and then the variant's; an error caused by one of the variant's values names
// it as the user typed it (`--vary key=value: ...`), not as the `--set` it becomes.
Scenario load_variant(const std::string& scenario, std::vector<std::string> overrides, const Variant& v,
                      const std::vector<std::string>& overlays);

// Whole nodes in a budget of `gpus` GPUs. InputError (where "--budget G") when that is fewer than 2 nodes.
int budget_nodes(long long gpus, int gpus_per_node);

struct BestTwo {
  std::optional<size_t> best, runner_up;
};

// The best and second-best of the values that are present (nullopt = not evaluated): lowest when `lower_better`,
// else highest; ties keep the earlier index.
BestTwo best_two(const std::vector<std::optional<double>>& values, bool lower_better);

// Whether the best of two evaluated candidates is really ahead, or the two are a tie the evaluation cannot separate.
// Capacity: each value is a bracket [capacity, lowest failing rate); the best is ahead only when its capacity is at
// or above the runner-up's lowest failing rate (the brackets do not overlap). JCT: the best is ahead when it is
// faster by at least `kJctTieMargin`, the spread of one run under a 0.02% perturbation of the fetch period
// (docs/performance.md).
inline constexpr double kJctTieMargin = 0.01;
bool capacity_ahead(double best, double runner_up_lowest_failing);
bool jct_ahead(double best, double runner_up);

}  // namespace dualpath::analysis
