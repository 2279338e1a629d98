// One layer's times for round 2 of agent(0, {{4096, 2, 0}, {100, 2, 0}}) on a one-GPU PE of test::small_scenario
// (a 4096-token hit, 102 fresh tokens): the hit's KV load over a CNIC of `cnic_bw` and the compute. The layer
// pipeline's closed forms (cluster_test.cpp, baselines_test.cpp) are built from them.
#pragma once

#include "core/cluster/cluster.hpp"

namespace dualpath::test {

struct LayerTimes {
  double load;     // l: one layer of the hit's KV into HBM
  double compute;  // c: one layer's attention and linear work
};

inline LayerTimes round_two_layer(const Cluster& c, const Scenario& s, double cnic_bw) {
  return {4096.0 * s.model.kv_bytes_per_token_one_layer() / cnic_bw,
          c.cost().attention_layer_time(4096, 102) + c.cost().linear_layer_time(102, c.cost().weight_bytes_per_gpu(1))};
}

}  // namespace dualpath::test
