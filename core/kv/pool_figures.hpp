// summary.json's "pool" section (policies with a DRAM pool, docs/dram-pool.md): what the DRAM-pool KV tier
// (core/cluster/dram_pool_source.cpp) writes and the summary readers (core/run/summary_sections.hpp) read back.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dualpath {

struct PoolFigures {
  double bytes_per_node = 0;
  std::string eviction;
  int nodes = 0;
  double capacity_bytes = 0;  // over all nodes
  double occupancy_mean_bytes = 0, occupancy_peak_node_bytes = 0, occupancy_end_bytes = 0;
  double hit_bytes_from_pool = 0, hit_bytes_from_storage = 0, pool_hit_share = 0;
  double written_bytes = 0, put_bytes = 0, evicted_bytes = 0, refused_bytes = 0;
};
// JSON keys are the field names (nlohmann's generated to_json/from_json): nlohmann::json(p), j.get<PoolFigures>().
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PoolFigures, bytes_per_node, eviction, nodes, capacity_bytes, occupancy_mean_bytes,
                                   occupancy_peak_node_bytes, occupancy_end_bytes, hit_bytes_from_pool,
                                   hit_bytes_from_storage, pool_hit_share, written_bytes, put_bytes, evicted_bytes,
                                   refused_bytes)

}  // namespace dualpath
