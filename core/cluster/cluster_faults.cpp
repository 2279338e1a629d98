// Faults (scenario "faults", docs/faults.md): a storage NIC that goes down or slows down, a storage cluster that
// slows down, and how the cluster keeps serving. The backend scales link bandwidths and fails the storage I/O in
// flight on a NIC that goes down; the core reacts as a scheduler would:
//  - a read queued or failed on a down SNIC goes to the other read path when the policy has one and that side's
//    SNIC is up (DualPath's second path is its resilience); a policy without the DE read path (Basic) puts the
//    request back in the PE waiting queue, and prefill engines whose node cannot read take no new requests;
//  - otherwise the read waits in its node's queue until the SNIC is back;
//  - a persistence write on a down SNIC waits for it; one that a fault failed is written again, whole.
// Nothing is dropped: every round completes exactly once (tests/core/faults_test.cpp, tests/cli/sim_faults.sh).
#include <sstream>

#include "core/config/input_error.hpp"
#include "core/cluster/cluster.hpp"
#include "core/cluster/phases.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

void Cluster::arm_faults() {
  faults_.clear();
  engine_lost_.assign(view_.engines.size(), false);
  if (sc_.faults.empty()) return;
  if (!be_.can_inject_faults())
    throw InputError(sc_.source_file + ": /faults",
                     "this backend cannot inject scenario faults (they are simulated; `dualpath-hw run --fault` "
                     "injects the hardware body's own)");
  be_.track_storage_io();
  for (size_t i = 0; i < sc_.faults.size(); ++i) {
    if (effect_of(sc_.faults[i].kind) == FaultEffect::LoseNode) phases_->writes.track_lost_writes();
    faults_.push_back(FaultRecord{sc_.faults[i]});
    const FaultSpec& f = sc_.faults[i];
    be_.timer(f.at, [this, i] { fault_begins(i); });
    if (f.until >= 0) be_.timer(f.until, [this, i] { fault_ends(i); });
  }
}

// The bandwidth factor of every SNIC and of the storage cluster: the product of the degrades active now.
void Cluster::apply_scales() {
  std::vector<double> snic(view_.nodes.size(), 1.0);
  double storage = 1.0;
  for (const FaultRecord& r : faults_) {
    if (r.started < 0 || r.ended >= 0) continue;
    if (effect_of(r.spec.kind) == FaultEffect::ScaleSnic) snic[static_cast<size_t>(r.spec.node)] *= r.spec.factor;
    if (effect_of(r.spec.kind) == FaultEffect::ScaleStorage) storage *= r.spec.factor;
  }
  for (size_t n = 0; n < snic.size(); ++n) be_.scale_snic(static_cast<int>(n), snic[n]);
  be_.scale_storage(storage);
}

// What a fault does when it hits and when it ends, by its effect (core/config/fault_kinds.hpp).
void Cluster::fault_begins(size_t i) {
  faults_[i].started = be_.now();
  switch (effect_of(faults_[i].spec.kind)) {
    case FaultEffect::SnicDown: snic_down(i); break;
    case FaultEffect::ScaleSnic:
    case FaultEffect::ScaleStorage: apply_scales(); break;
    case FaultEffect::LoseNode: node_down(i); break;
    case FaultEffect::LoseGpu: cnic_down(i); break;
  }
}

void Cluster::fault_ends(size_t i) {
  FaultRecord& rec = faults_[i];
  if (rec.started < 0) return;  // cannot happen (until > at), kept for safety
  rec.ended = be_.now();
  switch (effect_of(rec.spec.kind)) {
    case FaultEffect::SnicDown: snic_back(i); break;
    case FaultEffect::ScaleSnic:
    case FaultEffect::ScaleStorage: apply_scales(); break;
    case FaultEffect::LoseNode:
    case FaultEffect::LoseGpu: break;  // lost for the rest of the run: the loader refuses an `until`
  }
}

void Cluster::snic_down(size_t i) {
  FaultRecord& rec = faults_[i];
  const int node = rec.spec.node;
  view_.nodes[node].snic_up = false;
  set_can_take(node);
  if (pe_reads_only()) {
    // Some prefill node can read now or later: it is up, or every snic-down holding it down has an `until`.
    bool can_read_later = false;
    for (size_t n = 0; n < view_.nodes.size(); ++n) {
      if (!view_.nodes[n].prefill) continue;
      bool forever = false;
      for (const FaultRecord& r : faults_)
        forever = forever || (holds_snic_down(r.spec.kind) && r.spec.node == static_cast<int>(n) &&
                              r.started >= 0 && r.ended < 0 && r.spec.until < 0);
      can_read_later = can_read_later || !forever;
    }
    if (!can_read_later) {
      std::ostringstream m;
      m << "fault " << i << " (snic-down on node " << node << " at " << rec.started << " s): policy "
        << sc_.policy.name << " reads hit KV only through prefill-node SNICs, and every one of them is now down "
        << "for good, so no further round can load its KV (a policy with the DE read path, e.g. dualpath, reads "
        << "through the decode nodes; or give the fault an `until`)";
      throw NoProgressError(m.str());
    }
  }
  const std::string why = "the storage NIC of node " + std::to_string(node) + " is down (fault " + std::to_string(i) +
                          ", snic-down at " + std::to_string(rec.started) + " s)";
  be_.fail_storage_io(node, why);  // their failure callbacks run next, from the event loop
  // Reads still queued on the node go elsewhere where they can.
  for (const ReadQueues::ReadEntry& e : phases_->reads.take_queue(node)) {
    Request& r = requests_[e.id];
    r.wait_since = be_.now();  // its time in the queue was charged by charge_queue, as when ReadQueues::pump takes it
    if (r.side == ReadSide::Split) {  // its other half is abandoned too, and the request reads whole elsewhere
      rec.bytes_reread += phases_->reads.abandon(r);
      accounts_.release_buffer(r, layout_.node_of(r.pe), r.buffer_bytes[NodeSide::Pe]);
      accounts_.release_buffer(r, layout_.node_of(r.de), r.buffer_bytes[NodeSide::De]);
      // the side that is down: reroute moves it
      phases_->reads.set_read_side(r, e.half == NodeSide::Pe ? ReadSide::Pe : ReadSide::De);
    } else {
      view_.nodes[node].read_queue_tokens -= phases_->reads.half_tokens(r, e.half);
      r.half[e.half] = Request::Half::None;
    }
    reroute_read(r, i);
  }
  phases_->reads.pump_all();
}

void Cluster::snic_back(size_t i) {
  const int node = faults_[i].spec.node;
  if (down_fault(node) >= 0) return;  // another snic-down still holds it down
  view_.nodes[node].snic_up = true;
  set_can_take(node);
  phases_->writes.snic_back(node);
  phases_->reads.pump(node);
  arm_fetches();  // PE groups that could not read take requests again
}

int Cluster::down_fault(int node) const {
  for (size_t k = 0; k < faults_.size(); ++k) {
    const FaultRecord& r = faults_[k];
    if (holds_snic_down(r.spec.kind) && r.spec.node == node && r.started >= 0 && r.ended < 0)
      return static_cast<int>(k);
  }
  return -1;
}

int Cluster::read_path_down(const Request& r) const {
  for (NodeSide h : kNodeSides)
    if (phases_->reads.has_half(r, h) && !view_.nodes[phases_->reads.read_node(r, h)].snic_up)
      return phases_->reads.read_node(r, h);
  return -1;
}

// A read that cannot go through its SNIC now (queued there when it went down, or failed by it): to the other side
// with the DE read path, back to PE placement without it (unless no PE can read at all: then it waits), or it
// waits in the queue where it is.
void Cluster::reroute_read(Request& r, size_t fault) {
  FaultRecord& rec = faults_[fault];
  if (mutant("fault_no_reroute")) {
    phases_->reads.enqueue(r);
    return;
  }
  // The side whose SNIC is down (a split read whose PE half cannot be read reads whole through the DE node, and
  // the other way round), and where the policy reads instead.
  const bool pe_down = !view_.nodes[layout_.node_of(r.pe)].snic_up;
  const ReadSide down = r.side == ReadSide::Split ? (pe_down ? ReadSide::Pe : ReadSide::De) : r.side;
  if (const ReadSide other = policy_->other_read_side(down); other != ReadSide::Unset) {
    if (view_.nodes[layout_.node_of(other == ReadSide::De ? r.de : r.pe)].snic_up) {
      phases_->reads.set_read_side(r, other);
      ++rec.reads_moved;
    }
    phases_->reads.enqueue(r);
    return;
  }
  bool any_pe_up = false;
  for (const auto& n : view_.nodes) any_pe_up = any_pe_up || (n.prefill && n.snic_up);
  if (!any_pe_up) {
    phases_->reads.enqueue(r);  // waits for a prefill SNIC to come back
    return;
  }
  ++rec.reads_moved;
  unplace_pe(r);
}

void Cluster::unplace_pe(Request& r) {
  auto& e = view_.engines[r.pe];
  e.tok -= r.prompt, e.seq -= 1;
  r.pe = -1;
  pe_waiting_.push_front({r.id, r.prompt, 0});
  accounts_.set_wait(r, WaitCause::PeAdmission);
  arm_fetches();
}

// Without the DE read path a prefill engine reads through its own node's SNIC: it takes requests only while that
// is up (the placements skip it; its group's other engines still take them).
void Cluster::set_can_take(int node) {
  if (!pe_reads_only() || !view_.nodes[node].prefill) return;
  for (auto& e : view_.engines)
    if (e.node == node && e.prefill)
      e.can_take = view_.nodes[node].snic_up && !engine_lost_[static_cast<size_t>(e.gpu)];
}

}  // namespace dualpath
