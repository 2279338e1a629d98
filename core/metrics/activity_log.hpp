// An optional record of what the engines did, for timelines (Perfetto traces) and reports: forward passes and
// their streamed stages, the KV transfers of each stage, and decode chunks. Off unless a run asks for it
// (Cluster::set_activity_log), since a large run produces millions of records.
#pragma once

#include <cstdint>
#include <vector>

namespace dualpath {

struct ForwardRecord {
  int unit = -1;               // lockstep unit (EP group, or one engine for data-parallel models)
  int leader_gpu = -1;
  double start = 0, compute_end = 0;
  int stages = 0;
  int requests = 0;            // batch entries over the unit's engines
  int64_t fresh_tokens = 0;
  std::vector<int64_t> request_ids;
};

struct StageRecord {
  int forward = -1;            // index into ActivityLog::forwards
  int stage = 0;
  int layers = 0;
  double load_start = -1, load_end = -1, compute_start = -1, compute_end = -1;
};

// One coalesced KV transfer of a forward stage: a load into a PE's HBM or a send to a DE buffer.
struct KvTransferRecord {
  int forward = -1;
  int stage = 0;
  bool load = true;            // load (buffer -> PE HBM) or send (PE HBM -> DE buffer)
  int src_gpu = -1, dst_gpu = -1;
  double bytes = 0;
  double start = 0, end = -1;
};

struct DecodeChunkRecord {
  int unit = -1;
  int leader_gpu = -1;
  double start = 0, end = 0;
  int steps = 0;
  int batch = 0;               // requests decoding over the unit's engines
};

struct ActivityLog {
  std::vector<ForwardRecord> forwards;
  std::vector<StageRecord> stages;
  std::vector<KvTransferRecord> transfers;
  std::vector<DecodeChunkRecord> decode_chunks;
};

}  // namespace dualpath
