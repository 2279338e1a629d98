// Faults that lose engines (docs/faults.md): node-down and cnic-down.
// node-down: a node is lost at `at` with everything on it, for the rest of the run:
//  - its engines, and every engine that steps in lockstep with one of them (an EP group that spans the node: the
//    group cannot run a layer without it). Lost engines take no request again; their forwards and decode chunks in
//    flight are dropped;
//  - its DRAM buffer and HBM: the KV they held;
//  - its SNIC (storage I/O in flight on it fails), and the persistence writes it had in flight or not yet started:
//    their claimed blocks are unclaimed, so whoever computes those blocks next writes them.
// cnic-down: one GPU's compute NIC fails; its engine is lost as above, the rest of the node keeps serving.
// Every round with an attempt on a lost engine restarts at once as a new request (the agent's framework retries
// the call): its hit is the persisted prefix of its prompt now, so it restarts from its last persisted block. The
// lost attempt gives back what it held on the surviving nodes. A round whose first token was its last (gen = 1) is
// already complete and does not restart; only its prompt's persistence is lost. Transfers already in flight over
// the compute network from or to the lost node run to their end (the network does not know the node is gone);
// their bytes are discarded.
#include <algorithm>
#include <functional>
#include <sstream>

#include "core/cluster/cluster.hpp"
#include "core/cluster/phases.hpp"

namespace dualpath {

// The engines lost: every lockstep unit with a GPU that `lost` names. Their forwards and decode chunks in flight
// are dropped; their decode engines' filled blocks not yet on their way to storage are unclaimed.
void Cluster::lose_engines(size_t i, const std::function<bool(int)>& lost) {
  FaultRecord& rec = faults_[i];
  auto lose_units = [&](const std::vector<std::vector<int>>& units, auto on_unit) {
    for (size_t u = 0; u < units.size(); ++u) {
      if (std::none_of(units[u].begin(), units[u].end(), lost)) continue;
      for (int e : units[u]) engine_lost_[static_cast<size_t>(e)] = true, view_.engines[e].can_take = false;
      on_unit(u);
    }
  };
  lose_units(layout_.pe_units, [&](size_t u) { phases_->prefill.lose_unit(u); });
  lose_units(layout_.de_units, [&](size_t u) { phases_->decode.lose_unit(u, rec); });
  bool pe_left = false, de_left = false;
  for (const auto& e : view_.engines)
    (e.prefill ? pe_left : de_left) |= !engine_lost_[static_cast<size_t>(e.gpu)];
  if (!pe_left || !de_left) {
    std::ostringstream m;
    m << "fault " << i << " (" << name_of(rec.spec.kind) << " on node " << rec.spec.node;
    if (rec.spec.gpu >= 0) m << " gpu " << rec.spec.gpu;
    m << " at " << rec.started << " s): no " << (pe_left ? "decode" : "prefill")
      << " engine is left (the engines it took and every engine in an EP group with one of them were lost), so "
      << "no further round can be served";
    throw NoProgressError(m.str());
  }
}

void Cluster::node_down(size_t i) {
  FaultRecord& rec = faults_[i];
  const int node = rec.spec.node;
  lose_engines(i, [&](int gpu) { return layout_.node_of(gpu) == node; });
  // Its SNIC: storage I/O in flight fails (the failure callbacks run next, from the event loop, and find their
  // requests lost) and its writes in flight are undone now, so that no block stays claimed by a write that will
  // never land.
  view_.nodes[static_cast<size_t>(node)].snic_up = false;
  be_.fail_storage_io(node, "node " + std::to_string(node) + " is down (fault " + std::to_string(i) + ")");
  phases_->writes.lose_node(node, rec);
  restart_lost_rounds(i);
}

// A GPU's compute NIC fails: its engine (with its lockstep unit) is lost, since it can neither take KV nor join
// its group's all-to-all. The node, its DRAM buffer, SNIC and other engines keep serving; the DRAM-buffer traffic
// that sim.kv_port = "node" spreads over the node's CNICs moves off this one (buffer_port).
void Cluster::cnic_down(size_t i) {
  const FaultSpec& spec = faults_[i].spec;
  const int gpu = spec.node * layout_.gpus_per_node + spec.gpu;
  lose_engines(i, [gpu](int g) { return g == gpu; });
  ports_.cnic_down(gpu);
  restart_lost_rounds(i);
}

// The attempts lost: those on a lost decode engine that have not finished, and those on a lost prefill engine whose
// prompt KV is not yet all in the decode buffer. Each gives back what it held and its round restarts.
void Cluster::restart_lost_rounds(size_t i) {
  FaultRecord& rec = faults_[i];
  std::vector<int64_t> restart;
  // Requests handed to the sink are settled, so complete or lost (and may be freed): the scan starts after them.
  for (size_t id = handed_; id < requests_.size(); ++id) {
    Request& r = requests_[id];
    if (r.lost) continue;
    const bool complete = r.t.done >= 0 && (r.gen > 1 || r.t.handoff_end >= 0 || !phases_->io->persists_prompts());
    if (complete) continue;
    const bool on_pe = r.pe >= 0 && engine_lost_[static_cast<size_t>(r.pe)] && r.t.handoff_start < 0;
    const bool on_de = r.de >= 0 && engine_lost_[static_cast<size_t>(r.de)];
    if (!on_pe && !on_de) continue;
    if (lose_attempt(r, rec)) restart.push_back(r.id);
  }
  drop_lost_from_queues();
  for (int64_t id : restart) {
    const Request& r = requests_[id];
    ++rec.rounds_restarted;
    issue_round(r.agent, r.round);
  }
  phases_->reads.pump_all();
  if (layout_.streamed_buffers) phases_->prefill.pump();
  arm_fetches();
  hand_over_settled();  // the lost attempts are settled
}

bool Cluster::lose_attempt(Request& r, FaultRecord& rec) {
  const double now = be_.now();
  const bool round_over = r.wait_cause == WaitCause::Count;  // gen = 1: its first token was its last
  r.lost = true, r.lost_at = now;
  // Its storage read: queued (the queue's time is charged up to now, then it leaves), in flight (its slot is
  // freed by the backend's callback), or done; what it read is lost either way.
  if (r.pe >= 0 && r.de >= 0 && r.side != ReadSide::Unset) {
    const double weight = phases_->reads.queued_entry_weight(r);  // computed before any half leaves
    for (NodeSide h : kNodeSides) {
      const int rn = phases_->reads.read_node(r, h);
      switch (r.half[h]) {
        case Request::Half::Queued:
          phases_->reads.unqueue_half(r, h, weight);
          r.wait_since = now;
          break;
        case Request::Half::Reading:
          view_.nodes[static_cast<size_t>(rn)].read_queue_tokens -= phases_->reads.half_tokens(r, h);
          rec.bytes_lost += phases_->reads.half_bytes(r, h);
          break;
        case Request::Half::Done:
          rec.bytes_lost += phases_->reads.half_bytes(r, h);
          break;
        case Request::Half::None:
          break;
      }
    }
  }
  // Engine counters and HBM on the engines that remain (a lost engine's are gone with it).
  if (r.pe >= 0 && r.t.first_token < 0) {
    auto& e = view_.engines[r.pe];
    e.tok -= r.prompt, e.seq -= 1;
  }
  if (r.de >= 0) {
    auto& e = view_.engines[r.de];
    e.tok -= r.prompt + r.gen, e.seq -= 1;
    const bool waited = phases_->decode.leave_hbm_wait(r);
    const bool holds_hbm = !layout_.hbm_at_handoff || (r.t.handoff_start >= 0 && !waited);
    if (holds_hbm) {
      if (engine_lost_[static_cast<size_t>(r.de)]) e.hbm.release(layout_.kv_bytes(r.prompt + r.gen));
      else phases_->decode.release_hbm(r.de, layout_.kv_bytes(r.prompt + r.gen));
    }
  }
  if (r.buffer_bytes[NodeSide::Pe] > 0)
    accounts_.release_buffer(r, layout_.node_of(r.pe), r.buffer_bytes[NodeSide::Pe]);
  if (r.buffer_bytes[NodeSide::De] > 0)
    accounts_.release_buffer(r, layout_.node_of(r.de), r.buffer_bytes[NodeSide::De]);
  // The prompt's persistence that its first token started (its handoff would have ended it).
  phases_->io->prompt_abandoned(r);
  if (round_over) return false;
  accounts_.charge(r.wait_cause, r.wait_since);
  r.wait_cause = WaitCause::Count;
  return true;
}

// Lost attempts leave every queue they may sit in; requests routed to a decode group that lost engines go back to
// the global decode queue (routed again among the groups that remain).
void Cluster::drop_lost_from_queues() {
  auto keep_live = [this](auto& q) {
    q.erase(std::remove_if(q.begin(), q.end(), [this](const auto& x) { return requests_[x.id].lost; }), q.end());
  };
  keep_live(pe_waiting_);
  keep_live(de_global_);
  std::deque<QueuedRequest> rerouted;
  for (size_t g = 0; g < de_queues_.size(); ++g) {
    keep_live(de_queues_[g]);
    const auto& engines = view_.de_groups[g];
    if (std::none_of(engines.begin(), engines.end(), [this](int e) { return engine_lost_[static_cast<size_t>(e)]; }))
      continue;
    for (const auto& q : de_queues_[g]) {
      policy_->placement().unrouted(static_cast<int>(g), q);
      rerouted.push_back(q);
    }
    de_queues_[g].clear();
  }
  de_global_.insert(de_global_.begin(), rerouted.begin(), rerouted.end());
  phases_->prefill.drop_lost();
  phases_->decode.drop_lost();
}

}  // namespace dualpath
