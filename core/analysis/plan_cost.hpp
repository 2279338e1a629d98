// What a plan's answer costs (`dualpath plan --node-hour-cost D | --gpu-hour-cost D`, docs/capacity.md): the
// cluster's price per hour spread over what it serves at that answer. A JCT plan's split serves its agents in its JCT;
// a capacity plan's split serves its capacity (agents per second) with the token rates its probe at the capacity
// measured. Each figure divides the whole cluster's cost, so the $/M input and $/M output figures each charge
// everything to one kind of token (as a price sheet quotes either alone), not a split of the cost between them.
#pragma once

#include <cmath>

namespace dualpath::analysis {

struct SplitCost {
  double per_hour = NAN;                   // dollars per hour of the whole cluster (nodes x the node's price)
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
