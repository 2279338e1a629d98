// Storage reads: one FIFO read queue per node SNIC. A read starts when a slot is free and the DRAM buffer it
// reads into has room: on the PE path the PE buffer (hit KV), on the DE path the DE buffer (the prompt KV: hit KV
// read there, fresh KV merged later). With policy.buffer = "reserve" a PE-path read also reserves the DE buffer
// room its prompt KV will take during prefill; with "stream" (default) that room is reserved when the request's
// first forward starts (prefill_stage.cpp). A request that does not fit waits at the head of the queue (never
// dropped). Buffers cannot deadlock: DE-path requests hold all they need once admitted, so forwards always drain.
// The "what binds" report charges a queue's requests to the SNIC while all its read slots are busy, else to what
// blocks the head: FIFO order holds everyone behind a head that waits for buffer room or a pending write.
#include <algorithm>
#include <memory>

#include "core/cluster/read_stage.hpp"

#include "core/backend/run_errors.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

ReadStage::ReadStage(const StageShared& shared, const BlockIndex& blocks, TransferTotals& totals, KvSources& sources,
                     FaultBook& faults, StageSignals& signals, RequestStage& next, Policy& policy,
                     int reads_per_node, int nodes, bool prefetch, PrefetchListener& prefetched)
    : StageBase(shared),
      blocks_(blocks),
      totals_(totals),
      sources_(sources),
      faults_(faults),
      signals_(signals),
      next_(next),
      policy_(policy),
      reads_per_node_(reads_per_node),
      prefetch_(prefetch),
      prefetched_(prefetched),
      read_queue_(nodes), queued_weight_(nodes, 0.0), queue_wait_(nodes), reads_in_flight_(nodes, 0) {}

void ReadStage::accept(Request& r) {
  // pe-pull-from-de: the decode engine it was placed on holds its hit in HBM from the agent's last round; nothing is
  // read from storage and no buffer is taken (the prefill pulls the hit GPU to GPU, kv_io_storage.cpp).
  if (r.decode.resident_bytes() > 0) {
    set_read_side(r, ReadSide::DeHbm);
    r.t.read_start = r.t.read_end = be_.now();
    next_.accept(r);
    return;
  }
  const ReadSide side = policy_.choose_read_side(view_, r);
  set_read_side(r, side, side == ReadSide::Split ? policy_.split_pe_tokens(view_, r) : 0);
  if (const int down = faults_.any() ? read_path_down(r) : -1; down >= 0) {
    // a fault has a chosen SNIC down: the path that is up, if any
    reroute(r, static_cast<size_t>(faults_.down_fault(down)));
    return;
  }
  enqueue(r);
}

void FreeReads::accept(Request& r) {
  const ReadSide side = policy_.choose_read_side(view_, r);
  set_read_path(r, side, side == ReadSide::Split ? policy_.split_pe_tokens(view_, r) : 0, blocks_, layout_);
  r.t.read_start = r.t.read_end = be_.now();
  next_.accept(r);
}

void ReadStage::enqueue(Request& r) {
  split_reads_ = split_reads_ || r.read.side() == ReadSide::Split;
  accounts_.set_wait(r, WaitCause::ReadQueue);  // from now on the node queues charge its time (charge_queue)
  const PerSide<bool> halves{{has_half(r, ReadSide::Pe), has_half(r, ReadSide::De)}};
  for (ReadSide h : kNodeSides) r.read.set_half(h, halves[h] ? ReadHalf::Queued : ReadHalf::None);
  // A split read waits in both queues, each entry charging half of the request's time while both wait.
  const double weight = queued_entry_weight(r);
  for (ReadSide h : kNodeSides) {
    if (!halves[h]) continue;
    const int node = read_node(r, h);
    view_.nodes[node].read_queue_tokens += half_tokens(r, h);
    charge_queue(node);
    read_queue_[node].push_back({r.id, h});
    queued_weight_[node] += weight;
  }
  for (ReadSide h : kNodeSides)
    if (halves[h]) pump(read_node(r, h));
}

void ReadStage::charge_queue(int node) {
  auto& w = queue_wait_[node];
  accounts_.charge(w.cause, w.since, queued_weight_[node]);
  w.since = be_.now();
}

WaitCause ReadStage::admit(Request& r) {
  // A split read is admitted once, with the room both halves need, when its first half reaches a queue head: the
  // request then holds all it needs, as a DE-path one does, and its other half needs only a read slot
  // (start_admitted_halves), so buffers cannot deadlock between the two queues.
  if (r.read.halves(ReadHalf::Reading) + r.read.halves(ReadHalf::Done) > 0) return WaitCause::Count;
  if (blocks_.writes_pending(r.agent)) return WaitCause::WriteWait;  // the blocks to read are still being written
  const int de_node = layout_.node_of(r.de), pe_node = layout_.node_of(r.pe);
  const bool need_pe = r.read.side() != ReadSide::De;
  // A prefetching request's DE room is taken with its PE read: its prefetch then needs only a read slot, so a
  // prefetch never waits at a queue head for room that requests behind it hold.
  const bool need_de = r.read.side() != ReadSide::Pe || !layout_.streamed_buffers || prefetches(r);
  const bool unbounded = mutant("read_admission_unbounded");
  // GPUDirect Storage: the PE half lands in the PE GPU's HBM, which it holds instead of PE buffer room (a read that
  // waits for it is charged to the PE buffer, the room it stands in for). It takes the HBM its whole prompt's KV
  // will fill in its prefill: with the hits of requests still waiting for a forward in HBM, a forward that needed
  // more could find none and hold everything up.
  const bool to_hbm = need_pe && layout_.gdr;
  auto& pe_hbm = view_.engines[r.pe].hbm;
  if (need_pe && !unbounded &&
      !(to_hbm ? pe_hbm.fits(r.prompt_bytes) : view_.nodes[pe_node].buffer.fits(r.read.pe_hit_bytes())))
    return WaitCause::PeBuffer;
  if (need_de && !unbounded && !view_.nodes[de_node].buffer.fits(r.prompt_bytes)) return WaitCause::DeBuffer;
  if (to_hbm) {
    pe_hbm.touch(be_.now());
    pe_hbm.try_reserve(r.prompt_bytes);
    r.read.set_pe_hbm(r.prompt_bytes);
  } else if (need_pe) {
    accounts_.reserve_buffer(r, pe_node, r.read.pe_hit_bytes());
  }
  if (need_de) accounts_.reserve_buffer(r, de_node, r.prompt_bytes);
  return WaitCause::Count;
}

void ReadStage::pump(int node) {
  auto& q = read_queue_[node];
  charge_queue(node);
  if (!view_.nodes[node].snic_up) {  // a fault has its SNIC down: the queue waits for it
    queue_wait_[node].cause = WaitCause::ReadQueue;
    return;
  }
  WaitCause head_blocked = WaitCause::Count;
  bool blocked_on_slot = false;
  while (!q.empty()) {
    const ReadEntry entry = q.front();
    Request& r = requests_[entry.id];
    // A read takes one of the SNIC's read slots, unless the DRAM pool serves all of it (it uses no SNIC).
    const bool slot = needs_slot(r, entry);
    if (slot && reads_in_flight_[node] >= reads_per_node_) {
      blocked_on_slot = true;
      break;
    }
    head_blocked = entry.prefetch ? WaitCause::Count : admit(r);  // a prefetch's room came with its PE read
    if (head_blocked != WaitCause::Count) break;  // head-of-line: FIFO order is kept
    q.pop_front();
    if (entry.prefetch) start_prefetch(node, entry, slot);
    else start_read(node, entry, slot);
  }
  // A split read's other half needs no room (its request was admitted with its first half, holding the room both
  // need): it must not wait behind a head that waits for room, which the request itself may hold, or neither ever
  // moves. Such halves start now, in queue order, while read slots last.
  if (split_reads_ && head_blocked != WaitCause::Count && !mutant("split_half_waits_fifo"))
    start_admitted_halves(node);
  // From now on the queue waits for the SNIC while its head waits for a read slot, else for whatever blocks the head.
  queue_wait_[node].cause =
      !q.empty() && !blocked_on_slot && head_blocked != WaitCause::Count ? head_blocked : WaitCause::ReadQueue;
}

void ReadStage::start_read(int node, const ReadEntry& entry, bool slot) {
  Request& r = requests_[entry.id];
  const ReadSide h = entry.half;
  const bool first = r.read.halves(ReadHalf::Reading) + r.read.halves(ReadHalf::Done) == 0;
  queued_weight_[node] -= queued_entry_weight(r);
  r.read.set_half(h, ReadHalf::Reading);
  if (r.read.half(other_side(h)) == ReadHalf::Queued) {  // its other half now waits alone: it charges the whole request
    const int other = read_node(r, other_side(h));
    charge_queue(other);
    queued_weight_[other] += 0.5;
  }
  if (first) r.t.read_start = be_.now();
  if (first && prefetches(r) && r.read.prefetch() == ReadHalf::None) enqueue_prefetch(r);
  r.wait_since = be_.now();  // its time in the queue was charged by charge_queue
  if (r.read.halves(ReadHalf::Queued) == 0) accounts_.set_wait(r, WaitCause::Read);
  double bytes = half_bytes(r, h);
  if (bytes <= 0) {
    read_done(r, h);
    return;
  }
  if (slot) ++reads_in_flight_[node];
  const int64_t id = r.id;
  const int epoch = r.read.epoch();
  const int64_t tokens = half_tokens(r, h);
  BlockRanges blocks = half_blocks(r, h);
  Done done = [this, id, node, h, epoch, tokens, slot] {
    if (slot) --reads_in_flight_[node];
    Request& rq = requests_[id];
    // A half of an abandoned split read leaves the queue count (lost since or not: node_down counts only the
    // halves of the attempt it finds); a lost attempt's own read was counted by node_down.
    if (rq.read.epoch() != epoch) view_.nodes[node].read_queue_tokens -= tokens;
    else if (!rq.lost) read_done(rq, h);
    pump(node);
  };
  read_blocks(node, r, std::move(blocks), bytes, done,
              [this, id, node, h, epoch, tokens](const std::string& error, double storage, double pool) {
                read_failed(requests_[id], {node, h, epoch, tokens, storage, pool}, error);
              },
              h == ReadSide::Pe && layout_.gdr ? r.pe : -1);
}

void ReadStage::release_pe_hbm(Request& r) {
  if (r.read.pe_hbm_bytes() <= 0) return;
  auto& hbm = view_.engines[r.pe].hbm;
  hbm.touch(be_.now());
  hbm.release(r.read.pe_hbm_bytes());
  r.read.set_pe_hbm(0);
}

void ReadStage::read_blocks(int node, const Request& r, BlockRanges blocks, double bytes, const Done& done,
                            std::function<void(const std::string&, double, double)> failed, int hbm_gpu) {
  // With a DRAM pool the read's blocks that the pool holds come from there, beside the storage read of the rest;
  // the read ends when every part has. `left` counts the parts in flight (-1 once the storage part failed).
  auto left = std::make_shared<int>(1);
  KvSources::Split split = sources_.read(r, std::move(blocks), bytes, [left, done] {
    if (--*left == 0) done();
  });
  blocks = std::move(split.storage);
  bytes = split.storage_bytes;
  *left = split.transfers + (bytes > 0 ? 1 : 0);
  totals_.pool_read += split.other_bytes;
  // The "what binds" report: a read the pool serves alone waits for the pool, not for the SNIC.
  if (bytes <= 0 && r.wait_cause == WaitCause::Read) accounts_.set_wait(requests_[r.id], WaitCause::PoolRead);
  if (*left == 0) {  // all of it in the pool on the PE's own node
    be_.timer(0, done);
    return;
  }
  totals_.storage_read += bytes;
  (view_.nodes[node].prefill ? totals_.storage_read_pe : totals_.storage_read_de) += bytes;
  if (bytes <= 0) return;
  const double pool_bytes = split.other_bytes;
  Done part = [left, done] {
    if (--*left == 0) done();
  };
  Failed fail = [bytes, pool_bytes, left, failed = std::move(failed)](const std::string& error) {
    *left = -1;  // the pool's parts still in flight end nothing
    failed(error, bytes, pool_bytes);
  };
  if (hbm_gpu >= 0 && !mutant("gdr_stages_in_dram")) be_.storage_read_to_hbm(hbm_gpu, blocks, bytes, std::move(part), std::move(fail));
  else be_.storage_read(node, blocks, bytes, std::move(part), std::move(fail));
}

void ReadStage::start_admitted_halves(int node) {
  auto& q = read_queue_[node];
  for (size_t k = 1; k < q.size(); ++k) {
    const ReadEntry entry = q[k];
    const Request& r = requests_[entry.id];
    if (r.read.halves(ReadHalf::Reading) + r.read.halves(ReadHalf::Done) == 0) continue;  // not admitted yet
    const bool slot = needs_slot(r, entry);
    if (slot && reads_in_flight_[node] >= reads_per_node_) return;
    q.erase(q.begin() + static_cast<std::ptrdiff_t>(k));
    if (entry.prefetch) start_prefetch(node, entry, slot);
    else start_read(node, entry, slot);  // may change the queue (a read with nothing to read ends at once): rescan
    k = 0;
  }
}

void ReadStage::pump_all() {
  for (int n = 0; n < static_cast<int>(read_queue_.size()); ++n)
    if (!read_queue_[n].empty()) pump(n);
}

// A read the backend could not deliver (a failed SNIC, a lost file): retry it once, on the other read path where the
// policy has two (the other node's SNIC reads the same blocks from the shared storage), else on the same one. Its
// buffers are returned and reserved again by admit() on the new side; nothing else of the request has started. A
// split read is retried whole: its other half is abandoned (abandon) and the request reads on one side.
void ReadStage::read_failed(Request& r, const HalfRead& read, const std::string& error) {
  const int node = read.node;
  const ReadSide h = read.half;
  --reads_in_flight_[node];
  const bool abandoned = r.read.epoch() != read.epoch;  // a half of an abandoned split read
  if (r.lost && !abandoned) {  // its attempt was lost with a node: nothing to read again (node_down counted it)
    pump(node);
    return;
  }
  view_.nodes[node].read_queue_tokens -= read.tokens;
  totals_.storage_read -= read.bytes;  // counted again when the retry starts
  totals_.pool_read -= read.pool_bytes;
  (view_.nodes[node].prefill ? totals_.storage_read_pe : totals_.storage_read_de) -= read.bytes;
  if (abandoned) {  // nothing to read again
    pump(node);
    return;
  }
  r.read.set_half(h, ReadHalf::None);
  const bool split = r.read.side() == ReadSide::Split;
  // A scenario fault took the SNIC down.
  if (const int f = faults_.any() ? faults_.down_fault(node) : -1; f >= 0) {
    FaultRecord& rec = faults_[static_cast<size_t>(f)];
    ++rec.reads_failed;
    rec.bytes_reread += read.bytes;
    if (split) rec.bytes_reread += abandon(r);
    accounts_.release_buffer(r, layout_.node_of(r.pe), r.buffer_bytes[ReadSide::Pe]);
    accounts_.release_buffer(r, layout_.node_of(r.de), r.buffer_bytes[ReadSide::De]);
    release_pe_hbm(r);
    if (split) set_read_side(r, h == ReadSide::Pe ? ReadSide::Pe : ReadSide::De);  // reroute_read moves it off `node`
    reroute(r, static_cast<size_t>(f));
    signals_.de_room_back();  // both buffers were returned
    return;
  }
  const std::string what = "agent " + std::to_string(r.agent) + " round " + std::to_string(r.round) +
                           ": storage read on node " + std::to_string(node) + " failed: " + error;
  if (r.read.retries() > 0 || mutant("no_read_retry")) throw StorageError(what + " (and an earlier attempt failed too)");
  read_failures_.push_back(what);
  r.read.retried();
  if (split) abandon(r);
  // whatever it holds: it is read again from scratch
  accounts_.release_buffer(r, layout_.node_of(r.pe), r.buffer_bytes[ReadSide::Pe]);
  accounts_.release_buffer(r, layout_.node_of(r.de), r.buffer_bytes[ReadSide::De]);
  release_pe_hbm(r);
  // Whole, through the other node where the policy has two read paths (a split read has: the failed half's side is
  // the one it leaves), else again through the same one.
  if (const ReadSide other = policy_.other_read_side(h);
      other != ReadSide::Unset)
    set_read_side(r, other);
  enqueue(r);
  signals_.de_room_back();  // both buffers were returned: any node's queue head may fit now
}

void ReadStage::unqueue_half(Request& r, ReadSide h, double weight) {
  const int node = read_node(r, h);
  auto& q = read_queue_[node];
  const auto it = std::find_if(q.begin(), q.end(), [&](const ReadEntry& e) { return e.id == r.id && e.half == h; });
  if (it != q.end()) {  // (a queue that a fault emptied no longer holds it)
    charge_queue(node);
    q.erase(it);
    queued_weight_[node] -= weight;
  }
  view_.nodes[node].read_queue_tokens -= half_tokens(r, h);
}

double ReadStage::abandon(Request& r) {
  double started = 0;
  const double weight = queued_entry_weight(r);  // computed before any half leaves
  for (ReadSide h : kNodeSides) {
    switch (r.read.half(h)) {
      case ReadHalf::Queued:
        unqueue_half(r, h, weight);
        break;
      case ReadHalf::Reading:  // its callback sees the old epoch and takes its tokens off the queue count
      case ReadHalf::Done:
        started += half_bytes(r, h);
        break;
      case ReadHalf::None:
        break;
    }
    r.read.set_half(h, ReadHalf::None);
  }
  r.read.abandon();
  // While a half waits in a queue, the queues charge the request's time (up to now, as it left them); while both
  // are in flight it waits for the read, charged to it when its cause next changes.
  if (r.wait_cause == WaitCause::ReadQueue) r.wait_since = be_.now();
  return started;
}

void ReadStage::read_done(Request& r, ReadSide h) {
  view_.nodes[read_node(r, h)].read_queue_tokens -= half_tokens(r, h);
  r.read.set_half(h, ReadHalf::Done);
  if (r.read.halves(ReadHalf::Queued) + r.read.halves(ReadHalf::Reading) > 0) return;  // the other half is not in
  r.t.read_end = be_.now();
  next_.accept(r);
}

BlockRanges ReadStage::half_blocks(const Request& r, ReadSide h) const {
  const int64_t bt = blocks_.block_tokens();
  return blocks_.ranges(r.agent, h == ReadSide::Pe ? 0 : r.read.pe_hit() / bt, h == ReadSide::Pe ? r.read.pe_hit() / bt : r.hit / bt);
}

bool ReadStage::needs_slot(const Request& r, const ReadEntry& e) const {
  const int64_t bt = blocks_.block_tokens();
  if (e.prefetch) return !sources_.serves_alone(r.agent, 0, r.hit / bt);
  const ReadSide h = e.half;
  return !sources_.serves_alone(r.agent, h == ReadSide::Pe ? 0 : r.read.pe_hit() / bt,
                                h == ReadSide::Pe ? r.read.pe_hit() / bt : r.hit / bt);
}

void ReadStage::on_snic_down(int node, size_t fault) {
  FaultRecord& rec = faults_[fault];
  // Reads still queued on the node go elsewhere where they can.
  charge_queue(node);
  std::deque<ReadEntry> queued;
  queued.swap(read_queue_[node]);
  queued_weight_[node] = 0;
  for (const ReadEntry& e : queued) {
    Request& r = requests_[e.id];
    if (e.prefetch) {  // only this node's SNIC can fill its buffer: it waits for the SNIC
      read_queue_[node].push_back(e);
      continue;
    }
    r.wait_since = be_.now();  // its time in the queue was charged by charge_queue, as when pump takes it
    if (r.read.side() == ReadSide::Split) {  // its other half is abandoned too, and the request reads whole elsewhere
      rec.bytes_reread += abandon(r);
      accounts_.release_buffer(r, layout_.node_of(r.pe), r.buffer_bytes[ReadSide::Pe]);
      accounts_.release_buffer(r, layout_.node_of(r.de), r.buffer_bytes[ReadSide::De]);
      release_pe_hbm(r);
      // the side that is down: reroute moves it
      set_read_side(r, e.half == ReadSide::Pe ? ReadSide::Pe : ReadSide::De);
    } else {
      view_.nodes[node].read_queue_tokens -= half_tokens(r, e.half);
      r.read.set_half(e.half, ReadHalf::None);
    }
    reroute(r, fault);
  }
  pump_all();
}

int ReadStage::read_path_down(const Request& r) const {
  for (ReadSide h : kNodeSides)
    if (has_half(r, h) && !view_.nodes[read_node(r, h)].snic_up) return read_node(r, h);
  return -1;
}

void ReadStage::reroute(Request& r, size_t fault) {
  FaultRecord& rec = faults_[fault];
  if (mutant("fault_no_reroute")) {
    enqueue(r);
    return;
  }
  // The side whose SNIC is down (a split read whose PE half cannot be read reads whole through the DE node, and
  // the other way round), and where the policy reads instead.
  const bool pe_down = !view_.nodes[layout_.node_of(r.pe)].snic_up;
  const ReadSide down = r.read.side() == ReadSide::Split ? (pe_down ? ReadSide::Pe : ReadSide::De) : r.read.side();
  if (const ReadSide other = policy_.other_read_side(down); other != ReadSide::Unset) {
    if (view_.nodes[layout_.node_of(other == ReadSide::De ? r.de : r.pe)].snic_up) {
      set_read_side(r, other);
      ++rec.reads_moved;
    }
    enqueue(r);
    return;
  }
  bool any_pe_up = false;
  for (const auto& n : view_.nodes) any_pe_up = any_pe_up || (n.prefill && n.snic_up);
  if (!any_pe_up) {
    enqueue(r);  // waits for a prefill SNIC to come back
    return;
  }
  ++rec.reads_moved;
  signals_.place_again(r);
}

void ReadStage::on_lost(Request& r, FaultRecord& rec) {
  // Its storage read: queued (the queue's time is charged up to now, then it leaves), in flight (its slot is
  // freed by the backend's callback), or done; what it read is lost either way.
  if (r.pe < 0 || r.de < 0 || r.read.side() == ReadSide::Unset) return;
  switch (r.read.prefetch()) {  // a prefetch in flight takes its tokens off the count when it ends
    case ReadHalf::Queued: {
      const int node = layout_.node_of(r.de);
      auto& q = read_queue_[node];
      const auto it = std::find_if(q.begin(), q.end(), [&](const ReadEntry& e) { return e.id == r.id && e.prefetch; });
      if (it != q.end()) q.erase(it);
      view_.nodes[node].read_queue_tokens -= r.hit;
      break;
    }
    case ReadHalf::Reading:
    case ReadHalf::Done:
      rec.bytes_lost += r.hit_bytes;
      break;
    case ReadHalf::None:
      break;
  }
  const double weight = queued_entry_weight(r);  // computed before any half leaves
  for (ReadSide h : kNodeSides) {
    const int rn = read_node(r, h);
    switch (r.read.half(h)) {
      case ReadHalf::Queued:
        unqueue_half(r, h, weight);
        r.wait_since = be_.now();
        break;
      case ReadHalf::Reading:
        view_.nodes[static_cast<size_t>(rn)].read_queue_tokens -= half_tokens(r, h);
        rec.bytes_lost += half_bytes(r, h);
        break;
      case ReadHalf::Done:
        rec.bytes_lost += half_bytes(r, h);
        break;
      case ReadHalf::None:
        break;
    }
  }
}

size_t ReadStage::queued() const {
  size_t n = 0;
  for (const auto& q : read_queue_) n += q.size();
  return n;
}

void ReadStage::describe_heads(std::ostream& m) const {
  for (size_t n = 0; n < read_queue_.size(); ++n) {
    if (read_queue_[n].empty()) continue;
    const ReadEntry& head = read_queue_[n].front();
    const Request& r = requests_[head.id];
    m << "; node " << n << ": " << read_queue_[n].size() << " queued, " << reads_in_flight_[n]
      << " reading, head agent " << r.agent << " round " << r.round << " ("
      << (head.prefetch ? std::string("decode-side prefetch") :
                          std::string(node_label(head.half)) + " half of a " +
                              (r.read.side() == ReadSide::Split ? "split" : "whole") + " read")
      << ") waits for " << wait_cause_name(queue_wait_[n].cause);
  }
}

}  // namespace dualpath
