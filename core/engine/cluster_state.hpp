// Private pipeline state of prefill and decode groups (shared by the cluster_*.cpp files only).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "core/engine/cluster.hpp"

namespace dualpath {

// Blocks an agent claimed for one storage write (core/kv/block_index.hpp), and whose pending write it is.
struct AgentWrite {
  int agent = -1;
  BlockRanges blocks;
};

// One request's share of a forward batch.
struct BatchEntry {
  int64_t request;
  int64_t cached;     // KV tokens loaded for this forward
  int64_t fresh;      // tokens prefilled in this forward
  int64_t send_tokens;  // tokens whose KV this forward sends to the DE buffer
  bool last_chunk;    // the request's prefill completes with this forward
};

// A forward pass of one prefill group, streamed in stages of `layers[s]` layers: stage s+1 loads while stage s
// computes (two stages of KV resident), and stage s's KV goes to the DE buffers while s+1 computes.
struct Cluster::Forward {
  int group = -1;
  std::vector<std::vector<BatchEntry>> batch;  // per engine of the group
  std::vector<int> layers;                     // layers per stage
  std::vector<int> loads_pending, sends_pending;
  std::vector<bool> loaded;
  int loads_started = 0;
  int computed = 0;          // stages whose compute finished
  bool computing = false;
  int sends_finished = 0;    // stages whose sends all finished
  std::vector<double> hbm_per_engine;  // HBM each engine holds for the forward (non-layerwise: the batch's KV)
  bool compute_finished = false;
  double start = 0;          // when the forward was formed (PE busy time)
  int log_forward = -1;      // the activity observer's handle for it (-1: not kept)
  bool lost = false;         // its group was lost with a node: callbacks still in flight do nothing
};

struct Cluster::PrefillGroupState {
  bool lost = false;               // an engine of the group was lost with a node (fault node-down)
  bool waits_for_de_room = false;  // its last formation left ready requests out for lack of DE buffer room
  std::unique_ptr<Forward> current;             // the forward whose compute is running (at most one)
  std::vector<std::unique_ptr<Forward>> draining;  // forwards whose sends are still in flight
};

struct Cluster::DecodeGroupState {
  std::vector<std::vector<int64_t>> active;  // per engine of the group: requests decoding
  std::vector<std::vector<int64_t>> joining; // per engine: handoffs done, join at the next chunk
  bool running = false;
  bool lost = false;      // an engine of the group was lost with a node: the chunk in flight does nothing
  int steps = 0;          // steps of the chunk in flight
  double step_time = 0;
  double chunk_start = 0;
  int pending = 0;        // compute + collectives of the chunk still running
  int log_chunk = -1;     // the activity observer's handle for the running chunk
  std::vector<double> unflushed_bytes;  // per engine: filled blocks not yet persisted
  std::vector<std::vector<AgentWrite>> unflushed_blocks;  // per engine: whose blocks, and which
};

}  // namespace dualpath
