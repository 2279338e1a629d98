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
    be_.storage_read(node, blocks, r.hit_bytes, [this, id, node] {
      --reads_in_flight_[node];
      read_done(requests_[id]);
      pump_reads(node);
    });
  }
}

void Cluster::pump_all_reads() {
  for (int n = 0; n < static_cast<int>(read_queue_.size()); ++n)
    if (!read_queue_[n].empty()) pump_reads(n);
}

void Cluster::read_done(Request& r) {
  view_.nodes[node_of(r.side == ReadSide::De ? r.de : r.pe)].read_queue_tokens -= r.hit;
  r.t.read_end = be_.now();
  ready_for_prefill(r);
}

}  // namespace dualpath
