// A prefill forward in flight, as the prefill stage (prefill_stage.cpp) forms it and the KV-I/O service
// (kv_io_storage.cpp) moves its stages' KV: the record both read, owned by the prefill stage. Private to
// core/cluster/.
#pragma once

#include <cstdint>
#include <vector>

namespace dualpath {

// One request's share of a forward batch.
struct BatchEntry {
  int64_t request;
  int64_t cached;       // KV tokens loaded for this forward
  int64_t fresh;        // tokens prefilled in this forward
  int64_t send_tokens;  // tokens whose KV this forward sends to the DE buffer
  bool last_chunk;      // the request's prefill completes with this forward
  // Its KV moves stage by stage (layerwise); false: all its layers' KV loads with the first stage and leaves after
  // the last (a request under policy.layerwise_min_tokens, or every request without layerwise prefill).
  bool streamed = true;
  // The layers of stage `stage` (of `stages`, `layers` of them) whose KV this entry loads (first = true) or sends.
  int layers_moved(const std::vector<int>& layers, int stage, int n_layers, bool first) const {
    if (streamed) return layers[stage];
    return stage == (first ? 0 : static_cast<int>(layers.size()) - 1) ? n_layers : 0;
  }
};

// A forward pass of one prefill group, streamed in stages of `layers[s]` layers: stage s+1 loads while stage s
// computes (two stages of KV resident), and stage s's KV goes to the DE buffers while s+1 computes.
struct PrefillForward {
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

}  // namespace dualpath
