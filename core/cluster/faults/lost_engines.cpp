// Engines lost with a node or a CNIC (lost_engines.hpp). Every round with an attempt on a lost engine restarts at
// once as a new request (the agent's framework retries the call): its hit is the persisted prefix of its prompt
// now, so it restarts from its last persisted block. The lost attempt gives back what it held on the surviving
// nodes, each stage its own part (on_lost). A round whose first token was its last (gen = 1) is already complete
// and does not restart; only its prompt's persistence is lost. Transfers already in flight over the compute
// network from or to a lost node run to their end (the network does not know the node is gone); their bytes are
// discarded.
#include "core/cluster/faults/lost_engines.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "core/backend/run_errors.hpp"

namespace dualpath {

void lose_engines(FaultScope& s, size_t i, const std::function<bool(int)>& lost) {
  FaultRecord& rec = s.cluster.faults[i];
  auto lose_units = [&](const std::vector<std::vector<int>>& units, auto on_unit) {
    for (size_t u = 0; u < units.size(); ++u) {
      if (std::none_of(units[u].begin(), units[u].end(), lost)) continue;
      for (int e : units[u]) s.cluster.faults.lose_engine(e);
      s.placement.on_engines_lost(units[u]);
      on_unit(u);
    }
  };
  lose_units(s.cluster.layout.pe_units, [&](size_t u) { s.prefill.on_unit_lost(u); });
  lose_units(s.cluster.layout.de_units, [&](size_t u) { s.decode.on_unit_lost(u, rec); });
  bool pe_left = false, de_left = false;
  for (const auto& e : s.cluster.view.engines) (e.prefill ? pe_left : de_left) |= !s.cluster.faults.engine_lost(e.gpu);
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

namespace {

// Releases what the attempt holds, each stage its part; true: its round restarts.
bool lose_attempt(FaultScope& s, Request& r, FaultRecord& rec) {
  const bool round_over = r.wait_cause == WaitCause::Count;  // gen = 1: its first token was its last
  r.lost = true, r.lost_at = s.cluster.be.now();
  s.reads.on_lost(r, rec);
  // Engine counters and HBM on the engines that remain (a lost engine's are gone with it).
  s.prefill.on_lost(r);
  s.decode.on_lost(r, r.de >= 0 && s.cluster.faults.engine_lost(r.de));
  if (r.buffer_bytes[ReadSide::Pe] > 0)
    s.cluster.accounts.release_buffer(r, s.cluster.layout.node_of(r.pe), r.buffer_bytes[ReadSide::Pe]);
  if (r.buffer_bytes[ReadSide::De] > 0)
    s.cluster.accounts.release_buffer(r, s.cluster.layout.node_of(r.de), r.buffer_bytes[ReadSide::De]);
  // The prompt's persistence that its first token started (its handoff would have ended it).
  s.io.prompt_abandoned(r);
  if (round_over) return false;
  s.cluster.accounts.charge(r.wait_cause, r.wait_since);
  r.wait_cause = WaitCause::Count;
  return true;
}

}  // namespace

void restart_lost_rounds(FaultScope& s, size_t i) {
  FaultRecord& rec = s.cluster.faults[i];
  std::vector<int64_t> restart;
  // Requests handed to the sink are settled, so complete or lost (and may be freed): the scan starts after them.
  for (size_t id = s.cluster.first_unsettled(); id < s.cluster.requests.size(); ++id) {
    Request& r = s.cluster.requests[id];
    if (r.lost) continue;
    const bool complete = r.t.done >= 0 && (r.gen > 1 || r.t.handoff_end >= 0 || !s.io.persists_prompts());
    if (complete) continue;
    const bool on_pe = r.pe >= 0 && s.cluster.faults.engine_lost(r.pe) && r.t.handoff_start < 0;
    const bool on_de = r.de >= 0 && s.cluster.faults.engine_lost(r.de);
    if (!on_pe && !on_de) continue;
    if (lose_attempt(s, r, rec)) restart.push_back(r.id);
  }
  // Lost attempts leave every queue they may sit in; requests routed to a decode group that lost engines go back
  // to the global decode queue (routed again among the groups that remain).
  s.placement.drop_lost();
  s.prefill.drop_lost();
  s.decode.drop_lost();
  for (int64_t id : restart) {
    const Request& r = s.cluster.requests[id];
    ++rec.rounds_restarted;
    s.cluster.restart_round(r.agent, r.round);
  }
  s.reads.pump_all();
  if (s.cluster.layout.streamed_buffers) s.prefill.pump();
  s.placement.arm_fetches();
  s.cluster.hand_over_settled();  // the lost attempts are settled
}

}  // namespace dualpath
