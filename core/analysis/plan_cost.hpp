// What a plan's answer costs (`dualpath plan --node-hour-cost D | --gpu-hour-cost D`, docs/capacity.md): the
// cluster's price per hour spread over what it serves at that answer. A JCT plan's split serves its agents in its JCT;
// a capacity plan's split serves its capacity (agents per second) with the token rates its probe at the capacity
// measured. Each figure divides the whole cluster's cost, so the $/M input and $/M output figures each charge
// everything to one kind of token (as a price sheet quotes either alone), not a split of the cost between them.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace dualpath::analysis {

// What a plan was priced at (`--node-hour-cost` or `--gpu-hour-cost`): one price for every node, "98.32", or each
// kind of node its own, by topology name, "hopper-8gpu-80g=98.32,h20-8gpu-96g=40" (mixed hardware, issue 65: a
// cluster of H800-class prefill and H20-class decode nodes, and `--vary` over topologies, price each node by what it
// is). A GPU-hour price is times the node's GPUs.
struct Prices {
  bool per_gpu = false;
  std::optional<double> every;
  std::map<std::string, double> by_topology;
  bool priced() const { return every || !by_topology.empty(); }
  // A node's price per hour on the topology `name` of `gpus_per_node` GPUs; nullopt when the prices do not name it.
  std::optional<double> node_hour(const std::string& name, int gpus_per_node) const {
    std::optional<double> p = every;
    if (const auto it = by_topology.find(name); it != by_topology.end()) p = it->second;
    if (p && per_gpu) *p *= gpus_per_node;
    return p;
  }
};

// Parses a price option's text (the forms above; each price in (0, 1,000,000] dollars an hour). Throws
// std::invalid_argument saying what was expected.
Prices parse_prices(const std::string& text, bool per_gpu);

struct SplitCost {
  double per_hour = NAN;                   // dollars per hour of the whole cluster (each node at its price)
  double per_agent = NAN;                  // dollars per agent served
  double per_million_input_tokens = NAN;   // dollars per million prompt tokens served (hit and fresh)
  double per_million_output_tokens = NAN;  // dollars per million generated tokens
};

// `agents_per_s` the rate the split serves (a capacity; or agents / JCT), `input_per_s` and `output_per_s` its prompt
// and generated tokens per second (NaN or <= 0 when unknown: that figure is NaN).
inline SplitCost split_cost(double cluster_per_hour, double agents_per_s, double input_per_s, double output_per_s) {
  SplitCost c;
  c.per_hour = cluster_per_hour;
  const double per_s = cluster_per_hour / 3600;
  if (agents_per_s > 0) c.per_agent = per_s / agents_per_s;
  if (input_per_s > 0) c.per_million_input_tokens = per_s / (input_per_s / 1e6);
  if (output_per_s > 0) c.per_million_output_tokens = per_s / (output_per_s / 1e6);
  return c;
}

}  // namespace dualpath::analysis
