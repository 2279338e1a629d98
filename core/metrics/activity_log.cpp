#include "core/metrics/activity_log.hpp"

namespace dualpath {

ActivityObserver& no_activity() {
  static ActivityObserver none;
  return none;
}

int ActivityLog::forward_started(const std::function<ForwardRecord()>& record, const std::vector<int>& stage_layers) {
  const int f = static_cast<int>(forwards.size());
  forwards.push_back(record());
  forwards.back().first_stage = static_cast<int>(stages.size());
  for (size_t k = 0; k < stage_layers.size(); ++k) stages.push_back({f, static_cast<int>(k), stage_layers[k]});
  return f;
}

void ActivityLog::stage_point(int forward, int stage, StagePoint point, double now) {
  if (forward < 0) return;
  StageRecord& s = stages[static_cast<size_t>(forwards[static_cast<size_t>(forward)].first_stage + stage)];
  switch (point) {
    case StagePoint::LoadStart: s.load_start = now; break;
    case StagePoint::LoadEnd: s.load_end = now; break;
    case StagePoint::ComputeStart: s.compute_start = now; break;
    case StagePoint::ComputeEnd: s.compute_end = now; break;
  }
}

void ActivityLog::forward_compute_end(int forward, double now) {
  if (forward >= 0) forwards[static_cast<size_t>(forward)].compute_end = now;
}

int ActivityLog::transfer_started(const KvTransferRecord& t) {
  transfers.push_back(t);
  return static_cast<int>(transfers.size()) - 1;
}

void ActivityLog::transfer_ended(int transfer, double now) {
  if (transfer >= 0) transfers[static_cast<size_t>(transfer)].end = now;
}

int ActivityLog::decode_chunk_started(const DecodeChunkRecord& c) {
  decode_chunks.push_back(c);
  return static_cast<int>(decode_chunks.size()) - 1;
}

void ActivityLog::decode_chunk_ended(int chunk, double now) {
  if (chunk >= 0) decode_chunks[static_cast<size_t>(chunk)].end = now;
}

}  // namespace dualpath
