// Storage reads: one FIFO read queue per node SNIC. A read starts when a slot is free and the DRAM buffers it
// needs are reserved: on the PE path the PE buffer (hit KV) and the DE buffer (the whole prompt KV, which the PE
// streams there layer by layer); on the DE path the DE buffer (hit KV read there, fresh KV merged later). A
// request that does not fit waits at the head of the queue (never dropped); reserving everything up front means
// an admitted request never waits on a buffer again, so buffers cannot deadlock.
#include "core/engine/cluster.hpp"
#include "core/engine/cluster_state.hpp"

namespace dualpath {

void Cluster::enqueue_read(Request& r) {
  const int node = node_of(r.side == ReadSide::De ? r.de : r.pe);
  view_.nodes[node].read_queue_tokens += r.hit;
  read_queue_[node].push_back(r.id);
  pump_reads(node);
}

bool Cluster::admit(Request& r) {
  if (blocks_.writes_pending(r.agent)) return false;  // the blocks to read are still being written
  auto& de_buf = view_.nodes[node_of(r.de)].buffer;
  if (r.side == ReadSide::Pe) {
    auto& pe_buf = view_.nodes[node_of(r.pe)].buffer;
    if (!pe_buf.fits(r.hit_bytes) || !de_buf.fits(r.prompt_bytes)) return false;
    pe_buf.try_reserve(r.hit_bytes);
  } else if (!de_buf.fits(r.prompt_bytes)) {
    return false;
  }
  de_buf.try_reserve(r.prompt_bytes);
  return true;
}

void Cluster::pump_reads(int node) {
  auto& q = read_queue_[node];
  while (!q.empty() && reads_in_flight_[node] < tuning_.reads_in_flight_per_node) {
    Request& r = requests_[q.front()];
    if (!admit(r)) break;  // head-of-line: FIFO order is kept
    q.pop_front();
    r.t.read_start = be_.now();
    if (r.hit_bytes <= 0) {
      read_done(r);
      continue;
    }
    ++reads_in_flight_[node];
    totals_.storage_read += r.hit_bytes;
    (view_.nodes[node].prefill ? totals_.storage_read_pe : totals_.storage_read_de) += r.hit_bytes;
    const int64_t id = r.id;
    const BlockRanges blocks{{r.agent, 0, r.hit / blocks_.block_tokens()}};
    be_.storage_read(
        node, blocks, r.hit_bytes,
        [this, id, node] {
          --reads_in_flight_[node];
          read_done(requests_[id]);
          pump_reads(node);
        },
        [this, id, node](const std::string& error) { read_failed(requests_[id], node, error); });
  }
}

void Cluster::pump_all_reads() {
  for (int n = 0; n < static_cast<int>(read_queue_.size()); ++n)
    if (!read_queue_[n].empty()) pump_reads(n);
}

// A read the backend could not deliver (a failed SNIC, a lost file): retry it once, on the other read path where the
// policy has two (the other node's SNIC reads the same blocks from the shared storage), else on the same one. Its
// buffers are returned and reserved again by admit() on the new side; nothing else of the request has started.
void Cluster::read_failed(Request& r, int node, const std::string& error) {
  --reads_in_flight_[node];
  view_.nodes[node].read_queue_tokens -= r.hit;
  totals_.storage_read -= r.hit_bytes;  // counted again when the retry starts
  (view_.nodes[node].prefill ? totals_.storage_read_pe : totals_.storage_read_de) -= r.hit_bytes;
  const std::string what = "agent " + std::to_string(r.agent) + " round " + std::to_string(r.round) +
                           ": storage read on node " + std::to_string(node) + " failed: " + error;
  if (r.read_retries > 0) throw StorageError(what + " (and an earlier attempt failed too)");
  read_failures_.push_back(what);
  ++r.read_retries;
  if (r.side == ReadSide::Pe) view_.nodes[node_of(r.pe)].buffer.release(r.hit_bytes);
  view_.nodes[node_of(r.de)].buffer.release(r.prompt_bytes);
  if (features_.dual_path) r.side = r.side == ReadSide::Pe ? ReadSide::De : ReadSide::Pe;
  enqueue_read(r);
  pump_all_reads();  // both buffers were returned: any node's queue head may fit now
}

void Cluster::read_done(Request& r) {
  view_.nodes[node_of(r.side == ReadSide::De ? r.de : r.pe)].read_queue_tokens -= r.hit;
  r.t.read_end = be_.now();
  ready_for_prefill(r);
}

}  // namespace dualpath
