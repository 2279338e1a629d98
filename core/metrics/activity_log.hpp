// What the engines did, for timelines (Perfetto traces) and reports: forward passes and their streamed stages, the
// KV transfers of each stage, and decode chunks. The cluster reports every event to an ActivityObserver, which by
// default does nothing (no_activity()); an ActivityLog keeps them as records. Off unless a run asks for it
// (Cluster::set_activity_log), since a large run produces millions of records.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace dualpath {

struct ForwardRecord {
  int unit = -1;               // lockstep unit (EP group, or one engine for data-parallel models)
  int first_stage = -1;        // index of its stage 0 in ActivityLog::stages
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

// The engines' events as they happen. The calls that start something return a handle for the calls that end it
// (-1 when the observer keeps nothing); `record` builds a forward's record only for an observer that keeps it.
class ActivityObserver {
 public:
  enum class StagePoint { LoadStart, LoadEnd, ComputeStart, ComputeEnd };
  virtual ~ActivityObserver() = default;
  virtual int forward_started(const std::function<ForwardRecord()>& record, const std::vector<int>& stage_layers) {
    (void)record, (void)stage_layers;
    return -1;
  }
  virtual void stage_point(int forward, int stage, StagePoint point, double now) { (void)forward, (void)stage, (void)point, (void)now; }
  virtual void forward_compute_end(int forward, double now) { (void)forward, (void)now; }
  virtual int transfer_started(const KvTransferRecord& t) { (void)t; return -1; }
  virtual void transfer_ended(int transfer, double now) { (void)transfer, (void)now; }
  virtual int decode_chunk_started(const DecodeChunkRecord& c) { (void)c; return -1; }
  virtual void decode_chunk_ended(int chunk, double now) { (void)chunk, (void)now; }
};

// The observer that keeps nothing (the cluster's default).
ActivityObserver& no_activity();

struct ActivityLog final : ActivityObserver {
  std::vector<ForwardRecord> forwards;
  std::vector<StageRecord> stages;
  std::vector<KvTransferRecord> transfers;
  std::vector<DecodeChunkRecord> decode_chunks;

  int forward_started(const std::function<ForwardRecord()>& record, const std::vector<int>& stage_layers) override;
  void stage_point(int forward, int stage, StagePoint point, double now) override;
  void forward_compute_end(int forward, double now) override;
  int transfer_started(const KvTransferRecord& t) override;
  void transfer_ended(int transfer, double now) override;
  int decode_chunk_started(const DecodeChunkRecord& c) override;
  void decode_chunk_ended(int chunk, double now) override;
};

}  // namespace dualpath
