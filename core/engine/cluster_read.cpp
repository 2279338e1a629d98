// Storage reads: one FIFO read queue per node SNIC. A read starts when a slot is free and the DRAM buffer it
// reads into has room: on the PE path the PE buffer (hit KV), on the DE path the DE buffer (the prompt KV: hit KV
// read there, fresh KV merged later). With policy.buffer = "reserve" a PE-path read also reserves the DE buffer
// room its prompt KV will take during prefill; with "stream" (default) that room is reserved when the request's
// first forward starts (cluster_prefill.cpp). A request that does not fit waits at the head of the queue (never
// dropped). Buffers cannot deadlock: DE-path requests hold all they need once admitted, so forwards always drain.
// The "what binds" report charges a queue's requests to the SNIC while all its read slots are busy, else to what
// blocks the head: FIFO order holds everyone behind a head that waits for buffer room or a pending write.
#include "core/engine/cluster.hpp"
#include "core/engine/cluster_state.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

void Cluster::enqueue_read(Request& r) {
  const int node = node_of(r.side == ReadSide::De ? r.de : r.pe);
  view_.nodes[node].read_queue_tokens += r.hit;
  set_wait(r, WaitCause::ReadQueue);  // from now on the node's queue charges its time (charge_queue)
  charge_queue(node);
  read_queue_[node].push_back(r.id);
  pump_reads(node);
}

void Cluster::charge_queue(int node) {
  auto& w = queue_wait_[node];
  waits_.charge(w.cause, w.since, be_.now(), static_cast<double>(read_queue_[node].size()));
  w.since = be_.now();
}

WaitCause Cluster::admit(Request& r) {
  if (blocks_.writes_pending(r.agent)) return WaitCause::WriteWait;  // the blocks to read are still being written
  const int de_node = node_of(r.de), pe_node = node_of(r.pe);
  const bool need_de = r.side == ReadSide::De || !streamed_buffers();
  const bool unbounded = mutant("read_admission_unbounded");
  if (r.side == ReadSide::Pe && !unbounded && !view_.nodes[pe_node].buffer.fits(r.hit_bytes)) return WaitCause::PeBuffer;
  if (need_de && !unbounded && !view_.nodes[de_node].buffer.fits(r.prompt_bytes)) return WaitCause::DeBuffer;
  if (r.side == ReadSide::Pe) reserve_buffer(r, pe_node, r.hit_bytes);
  if (need_de) reserve_buffer(r, de_node, r.prompt_bytes);
  return WaitCause::Count;
}

void Cluster::pump_reads(int node) {
  auto& q = read_queue_[node];
  charge_queue(node);
  if (!view_.nodes[node].snic_up) {  // a fault has its SNIC down: the queue waits for it
    queue_wait_[node].cause = WaitCause::ReadQueue;
    return;
  }
  WaitCause head_blocked = WaitCause::Count;
  while (!q.empty() && reads_in_flight_[node] < tuning_.reads_in_flight_per_node) {
    Request& r = requests_[q.front()];
    head_blocked = admit(r);
    if (head_blocked != WaitCause::Count) break;  // head-of-line: FIFO order is kept
    q.pop_front();
    r.t.read_start = be_.now();
    r.wait_since = be_.now();  // its time in the queue was charged by charge_queue
    set_wait(r, WaitCause::Read);
    if (r.hit_bytes <= 0) {
      read_done(r);
      continue;
    }
    ++reads_in_flight_[node];
    totals_.storage_read += r.hit_bytes;
    (view_.nodes[node].prefill ? totals_.storage_read_pe : totals_.storage_read_de) += r.hit_bytes;
    const int64_t id = r.id;
    const BlockRanges blocks = blocks_.ranges(r.agent, 0, r.hit / blocks_.block_tokens());
    be_.storage_read(
        node, blocks, r.hit_bytes,
        [this, id, node] {
          --reads_in_flight_[node];
          if (!requests_[id].lost) read_done(requests_[id]);  // a lost attempt's read was counted by node_down
          pump_reads(node);
        },
        [this, id, node](const std::string& error) { read_failed(requests_[id], node, error); });
  }
  // From now on the queue waits for the SNIC while every read slot is taken, else for whatever blocks its head.
  const bool slots_free = reads_in_flight_[node] < tuning_.reads_in_flight_per_node;
  queue_wait_[node].cause =
      !q.empty() && slots_free && head_blocked != WaitCause::Count ? head_blocked : WaitCause::ReadQueue;
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
  if (r.lost) {  // its attempt was lost with a node: nothing to read again
    pump_reads(node);
    return;
  }
  view_.nodes[node].read_queue_tokens -= r.hit;
  totals_.storage_read -= r.hit_bytes;  // counted again when the retry starts
  (view_.nodes[node].prefill ? totals_.storage_read_pe : totals_.storage_read_de) -= r.hit_bytes;
  if (const int f = faults_.empty() ? -1 : down_fault(node); f >= 0) {  // a scenario fault took the SNIC down
    FaultRecord& rec = faults_[static_cast<size_t>(f)];
    ++rec.reads_failed;
    rec.bytes_reread += r.hit_bytes;
    release_buffer(r, node_of(r.pe), r.buffer_bytes[0]);
    release_buffer(r, node_of(r.de), r.buffer_bytes[1]);
    reroute_read(r, static_cast<size_t>(f));
    pump_all_reads();
    if (streamed_buffers()) pump_forwards();
    return;
  }
  const std::string what = "agent " + std::to_string(r.agent) + " round " + std::to_string(r.round) +
                           ": storage read on node " + std::to_string(node) + " failed: " + error;
  if (r.read_retries > 0 || mutant("no_read_retry")) throw StorageError(what + " (and an earlier attempt failed too)");
  read_failures_.push_back(what);
  ++r.read_retries;
  release_buffer(r, node_of(r.pe), r.buffer_bytes[0]);  // whatever it holds: it is read again from scratch
  release_buffer(r, node_of(r.de), r.buffer_bytes[1]);
  if (features_.dual_path) r.side = r.side == ReadSide::Pe ? ReadSide::De : ReadSide::Pe;
  enqueue_read(r);
  pump_all_reads();  // both buffers were returned: any node's queue head may fit now
  if (streamed_buffers()) pump_forwards();
}

void Cluster::read_done(Request& r) {
  view_.nodes[node_of(r.side == ReadSide::De ? r.de : r.pe)].read_queue_tokens -= r.hit;
  r.t.read_end = be_.now();
  ready_for_prefill(r);
}

}  // namespace dualpath
