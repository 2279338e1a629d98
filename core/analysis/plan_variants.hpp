// What `dualpath plan` varies besides the P/D split: `--vary KEY=V1,V2,...` axes (every combination of their values
// is one cluster variant, evaluated at every split), a cluster size given as a GPU budget (`--budget G`: as many
// whole nodes as G GPUs make, which depends on each variant's GPUs per node), and the choice of the best and
// runner-up among evaluated candidates.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dualpath::analysis {

struct VaryAxis {
  std::string key;                  // a --set path, e.g. topology.snic_bw
  std::vector<std::string> values;  // as --set values, e.g. "200 Gbps"
};

// Parses "KEY=V1,V2,...". InputError (where "--vary TEXT") on a missing '=', an empty key, an empty or repeated value.
VaryAxis parse_vary(const std::string& text);

struct Variant {
  std::string label;                   // "key=v; key2=w", empty for the scenario as it is
  std::vector<std::string> overrides;  // "key=v" for --set, one per axis
};

// Every combination of the axes' values, the first axis varying slowest; one empty variant when there are no axes.
// InputError when two axes name the same key.
std::vector<Variant> variant_grid(const std::vector<VaryAxis>& axes);

// A folder name for variant `index` of the grid: "<index>-<label>" with characters outside [A-Za-z0-9._=+-] as '_'
// (the index keeps names unique when two labels differ only in those characters).
std::string variant_folder(size_t index, const Variant& v);

// Whole nodes in a budget of `gpus` GPUs. InputError (where "--budget G") when that is fewer than 2 nodes.
int budget_nodes(long long gpus, int gpus_per_node);

struct BestTwo {
  std::optional<size_t> best, runner_up;
};

// The best and second-best of the values that are present (nullopt = not evaluated): lowest when `lower_better`,
// else highest; ties keep the earlier index.
BestTwo best_two(const std::vector<std::optional<double>>& values, bool lower_better);

}  // namespace dualpath::analysis
