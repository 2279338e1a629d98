// Decode-side prefetch (policy de-prefetch, SGLang PR #26227; docs/baselines.md): the DE node of a PE-path read
// reads the whole hit into its own buffer, queued on its SNIC when the PE read starts. Its buffer room came with the
// PE read's admission (ReadStage::admit), so it needs only a read slot; when it is in, the prefetch gate
// (prefetch_gate.hpp) lets the request on to decode. Part of the read stage (read_stage.hpp).
#include "core/backend/run_errors.hpp"
#include "core/cluster/read_stage.hpp"

namespace dualpath {

void ReadStage::enqueue_prefetch(Request& r) {
  const int node = layout_.node_of(r.de);
  r.read.set_prefetch(ReadHalf::Queued);
  view_.nodes[node].read_queue_tokens += r.hit;  // the scheduler sees the DE node's queue grow by the hit
  charge_queue(node);
  read_queue_[node].push_back({r.id, ReadSide::De, true});  // weight 0: the request's time is charged elsewhere
  pump(node);
}

void ReadStage::start_prefetch(int node, const ReadEntry& entry, bool slot) {
  Request& r = requests_[entry.id];
  r.read.set_prefetch(ReadHalf::Reading);
  if (slot) ++reads_in_flight_[node];
  const int64_t id = r.id;
  const int64_t tokens = r.hit;
  Done done = [this, id, node, tokens, slot] {
    if (slot) --reads_in_flight_[node];
    view_.nodes[node].read_queue_tokens -= tokens;
    Request& rq = requests_[id];
    if (!rq.lost) {
      rq.read.set_prefetch(ReadHalf::Done);
      prefetched_.prefetched(rq);
    }
    pump(node);
  };
  const int64_t bt = blocks_.block_tokens();
  read_blocks(node, r, blocks_.ranges(r.agent, 0, r.hit / bt), r.hit_bytes, done,
              [this, id, node, slot](const std::string& error, double storage, double pool) {
                if (slot) --reads_in_flight_[node];
                prefetch_failed(requests_[id], node, storage, pool, error);
              });
}

// A prefetch the backend could not deliver is read again on the same node (only the DE node holds the buffer it
// fills): after a fault took its SNIC down it waits in the queue for the SNIC; a second storage failure stops the
// run, as for any read.
void ReadStage::prefetch_failed(Request& r, int node, double bytes, double pool_bytes, const std::string& error) {
  view_.nodes[node].read_queue_tokens -= r.hit;
  totals_.storage_read -= bytes;  // counted again when it is read again
  totals_.storage_read_de -= bytes;
  totals_.pool_read -= pool_bytes;
  if (r.lost) {
    pump(node);
    return;
  }
  if (const int f = faults_.any() ? faults_.down_fault(node) : -1; f >= 0) {
    FaultRecord& rec = faults_[static_cast<size_t>(f)];
    ++rec.reads_failed;
    rec.bytes_reread += bytes;
  } else {
    const std::string what = "agent " + std::to_string(r.agent) + " round " + std::to_string(r.round) +
                             ": decode-side prefetch on node " + std::to_string(node) + " failed: " + error;
    if (r.read.retries() > 0) throw StorageError(what + " (and an earlier attempt failed too)");
    read_failures_.push_back(what);
    r.read.retried();
  }
  r.read.set_prefetch(ReadHalf::None);
  enqueue_prefetch(r);
}

}  // namespace dualpath
