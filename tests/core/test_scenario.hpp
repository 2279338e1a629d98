// A small scenario built in code for core tests (no files): DeepSeek-V3.2-like model, Hopper nodes; and agents.
#pragma once

#include <utility>
#include <vector>

#include "core/config/scenario.hpp"
#include "core/workload/agents.hpp"

namespace dualpath::test {

inline Scenario small_scenario(int p_nodes = 1, int d_nodes = 1, int gpus_per_node = 1) {
  Scenario s;
  s.name = "test";
  s.source_file = "<test>";
  auto& m = s.model;
  m.name = "ds-like";
  m.n_layers = 8;
  m.kv_bytes_per_token_layer = 656;
  m.active_params = 37e9;
  m.weight_bytes = 40e9;
  m.attn_flops_per_query_key = 278528;
  m.sparse_topk = 2048;
  m.indexer_flops_per_query_key = 16384;
  m.indexer_bytes_per_token_layer = 132;
  auto& t = s.topology;
  t.gpus_per_node = gpus_per_node;
  t.gpu = {989e12, 80e9, 3.35e12};
  t.cnic_bw = 50e9;
  t.snic_bw = 50e9;
  t.pcie_bw = 64e9;
  t.dram_bw = 500e9;
  t.dram_buffer_bytes = 80e9;
  t.storage = {0, 50e9, 60e9, 60e9, 0};
  auto& d = s.deployment;
  d.prefill_nodes = p_nodes;
  d.decode_nodes = d_nodes;
  d.pe_group_gpus = gpus_per_node;
  d.de_group_gpus = gpus_per_node;
  d.fetch_period = 0.01;
  s.sim.decode_chunk_steps = 4;
  return s;
}

// An agent with the given rounds (append, gen, think), starting at t = 0.
inline Agent agent(int id, std::vector<Round> rounds) {
  Agent a;
  a.id = id;
  a.rounds = std::move(rounds);
  return a;
}

}  // namespace dualpath::test
