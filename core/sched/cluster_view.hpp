// The read-only snapshot that scheduling policies decide on: per-engine load (seq, tok, free HBM), per-node
// storage read queues, and the constants alpha, beta, Z derived from model and topology.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kv/buffer_pool.hpp"

namespace dualpath {

struct EngineState {
  int gpu = -1;         // global GPU index
  int node = -1;
  int group = -1;       // index into ClusterView::pe_groups or de_groups
  bool prefill = false;
  int seq = 0;          // assigned, unfinished requests
  int64_t tok = 0;      // their tokens (prompt tokens; decode: prompt + generation)
  BufferPool hbm;       // KV capacity: HBM minus the engine's weight share; decode reserves per request
  // False while the engine cannot load a request's KV (a prefill engine whose node's SNIC a fault took down, under
  // a policy without the DE read path): placements give it no new request.
  bool can_take = true;
};

struct NodeState {
  bool prefill = false;
  int64_t read_queue_tokens = 0;  // hit tokens waiting for or being read through this node's SNIC
  // What its SNIC reads, bytes/s (snic_bw x the storage client's efficiency): with mixed hardware (issue 65) two
  // nodes' queues drain at different speeds, so their read queues compare as times (read_queue_drains_first).
  double read_bw = 1;
  bool snic_up = true;            // false while a fault has its storage NIC down (scenario "faults")
  BufferPool buffer;              // the node's DRAM buffer (PE buffer or DE buffer)
};

// True when node a's read queue drains before node b's: fewer tokens at one SNIC speed (exactly the token
// comparison of one kind of node), else fewer seconds at each node's own.
inline bool read_queue_drains_first(const NodeState& a, const NodeState& b) {
  if (a.read_bw == b.read_bw) return a.read_queue_tokens < b.read_queue_tokens;
  return static_cast<double>(a.read_queue_tokens) / a.read_bw < static_cast<double>(b.read_queue_tokens) / b.read_bw;
}

struct ClusterView {
  std::vector<EngineState> engines;       // indexed by global GPU index
  std::vector<NodeState> nodes;
  std::vector<std::vector<int>> pe_groups;  // engine (GPU) indices of each prefill group
  std::vector<std::vector<int>> de_groups;
  int gpus_per_node = 0;
  int64_t alpha_tokens = 0;  // tokens one node reads from storage in alpha_seconds
  int64_t beta_tokens = 0;   // tokens one GPU processes in beta_seconds
  double z_factor = 1.05;
};

// A request as the scheduler's queues see it.
struct QueuedRequest {
  int64_t id = -1;
  int64_t tokens = 0;     // prompt tokens (PE balancing) or prompt + generation (DE balancing)
  double hbm_need = 0;    // decode HBM for the whole sequence's KV
};

}  // namespace dualpath
