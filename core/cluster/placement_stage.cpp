// The placement stage (placement_stage.hpp): the scheduler's queues and its fetch loop (PE and DE group leaders
// pull periodically).
#include "core/cluster/placement_stage.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/backend/run_errors.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

PlacementStage::PlacementStage(const StageShared& shared, double fetch_period, Policy& policy,
                               const std::string& policy_name, const FaultBook& faults, RequestStage& next,
                               ResidentPrefixes* resident)
    : StageBase(shared),
      fetch_period_(fetch_period),
      policy_(policy),
      faults_(faults),
      next_(next),
      resident_(resident),
      de_queues_(view_.de_groups.size()),
      pe_fetch_armed_(view_.pe_groups.size(), false),
      de_fetch_armed_(view_.de_groups.size(), false),
      policy_name_(policy_name) {}

void PlacementStage::accept(Request& r) {
  pe_waiting_.push_back({r.id, r.prompt, 0});
  if (const int de = resident_ ? resident_->claim(r) : -1; de >= 0) {
    // pe-pull-from-de: vLLM's stateful proxy (keyed by conversation) sends the next turn to the decode engine that
    // holds its prefix; the policy's decode placement is not asked.
    auto& e = view_.engines[de];
    r.de = de;
    r.t.de_assigned = be_.now();
    r.place.de_seen_ = true;
    e.tok += r.prompt + r.gen, e.seq += 1;
  } else {
    de_global_.push_back({r.id, r.prompt + r.gen, layout_.kv_bytes(r.prompt + r.gen)});
  }
  arm_fetches();
}

// Group leaders fetch at multiples of the fetch period, phase-shifted per group so groups do not fetch in
// lockstep. A leader with nothing to fetch does not wake up (saves events; the fetch times are unchanged).
void PlacementStage::arm_fetches() {
  const double period = fetch_period_ / (mutant("no_fetch_period") ? 100.0 : 1.0);
  const double now = be_.now();
  auto next_time = [&](size_t g, size_t n) {
    const double phase = period * static_cast<double>(g) / static_cast<double>(n);
    // The next fetch instant strictly after now (a leader that just fetched waits a full period). The slack of
    // 1e-6 periods skips a boundary that `now` only misses by rounding: a backend whose clock resolution is
    // coarser than that gap (SimGrid's is 1e-9 s) would otherwise fire the same fetch forever.
    double k = std::floor((now - phase) / period + 1e-6) + 1;
    while (phase + k * period - now < 1e-7) k += 1;  // also in absolute terms, for very short periods
    return phase + k * period;
  };
  if (!pe_waiting_.empty())
    for (size_t g = 0; g < pe_fetch_armed_.size(); ++g)
      if (!pe_fetch_armed_[g]) {
        pe_fetch_armed_[g] = true;
        const int group = static_cast<int>(g);
        be_.timer(next_time(g, pe_fetch_armed_.size()) - now, [this, group] { prefill_fetch(group); });
      }
  for (size_t g = 0; g < de_fetch_armed_.size(); ++g)
    if (!de_fetch_armed_[g] && (!de_global_.empty() || !de_queues_[g].empty())) {
      de_fetch_armed_[g] = true;
      const int group = static_cast<int>(g);
      be_.timer(next_time(g, de_fetch_armed_.size()) - now, [this, group] { decode_fetch(group); });
    }
}

namespace {
// Removes the placed positions from a queue, keeping the others in order.
void erase_placed(std::deque<QueuedRequest>& q, const std::vector<Placement>& placed) {
  std::vector<bool> gone(q.size(), false);
  for (const auto& p : placed) gone[p.index] = true;
  std::deque<QueuedRequest> kept;
  for (size_t i = 0; i < q.size(); ++i)
    if (!gone[i]) kept.push_back(q[i]);
  q.swap(kept);
}
}  // namespace

void PlacementStage::prefill_fetch(int group) {
  pe_fetch_armed_[group] = false;
  const auto placed_list = policy_.placement().place_prefill(view_, group, pe_waiting_);
  std::vector<int64_t> ids;
  for (const auto& p : placed_list) {
    Request& r = requests_[pe_waiting_[p.index].id];
    auto& e = view_.engines[p.engine];
    r.pe = p.engine;
    r.t.pe_assigned = be_.now();
    r.place.pe_seen_ = true;
    if (r.de < 0) accounts_.set_wait(r, r.place.de_seen() ? WaitCause::DeHbm : WaitCause::Fetch);
    e.tok += r.prompt, e.seq += 1;
    ids.push_back(r.id);
  }
  if (placed_list.size() == pe_waiting_.size()) pe_waiting_.clear();
  else erase_placed(pe_waiting_, placed_list);
  // Requests this fetch saw but could not place wait for PE admission from now on. Unseen ones are a suffix of
  // the queue (arrivals append; every fetch marks all), so only the new ones are visited.
  for (auto it = pe_waiting_.rbegin(); it != pe_waiting_.rend() && !requests_[it->id].place.pe_seen(); ++it) {
    Request& r = requests_[it->id];
    r.place.pe_seen_ = true;
    accounts_.set_wait(r, WaitCause::PeAdmission);
  }
  watch(true, !placed_list.empty(), pe_waiting_.size());
  for (int64_t id : ids)
    if (requests_[id].de >= 0) placed(requests_[id]);
  arm_fetches();
}

void PlacementStage::decode_fetch(int group) {
  de_fetch_armed_[group] = false;
  if (resident_) resident_->expire_due();  // HBM pinned past its retention time is free again for this fetch
  if (!de_global_.empty()) {
    const auto routes = policy_.placement().route_decode(view_, de_global_);
    for (size_t i = 0; i < de_global_.size(); ++i) de_queues_[routes[i]].push_back(de_global_[i]);
    de_global_.clear();
  }
  auto& q = de_queues_[group];
  const auto placed_list = policy_.placement().place_decode(view_, group, q);
  std::vector<int64_t> ids;
  for (const auto& p : placed_list) {
    Request& r = requests_[q[p.index].id];
    auto& e = view_.engines[p.engine];
    if (!layout_.hbm_at_handoff) {
      e.hbm.touch(be_.now());
      if (!e.hbm.try_reserve(q[p.index].hbm_need))
        throw std::logic_error("policy placed a request on a decode engine without HBM room");
    }
    r.de = p.engine;
    r.t.de_assigned = be_.now();
    r.place.de_seen_ = true;
    e.tok += r.prompt + r.gen, e.seq += 1;
    ids.push_back(r.id);
  }
  if (placed_list.size() == q.size()) q.clear();
  else erase_placed(q, placed_list);
  for (auto it = q.rbegin(); it != q.rend() && !requests_[it->id].place.de_seen(); ++it) {
    Request& r = requests_[it->id];
    r.place.de_seen_ = true;
    if (r.pe >= 0) accounts_.set_wait(r, WaitCause::DeHbm);  // else it still waits for a PE (charged there)
  }
  watch(false, !placed_list.empty(), q.size());
  for (int64_t id : ids)
    if (requests_[id].pe >= 0) placed(requests_[id]);
  arm_fetches();
}

void PlacementStage::watch(bool prefill, bool placed_any, size_t waiting) {
  double& since = prefill ? pe_stuck_since_ : de_stuck_since_;
  // Stuck only while nothing can change what the policy sees: every engine of the role idle (no request holds it),
  // able to take one and not lost. With resident prefixes (pe-pull-from-de) an idle decode engine's HBM may stay
  // pinned for policy.de_retention, however long the user sets it: that side is not watched. The first busy engine
  // ends the scan, so a loaded cluster pays one look per fetch.
  const auto idle = [&] {
    if (placed_any || waiting == 0 || (!prefill && resident_ != nullptr)) return false;
    for (const auto& g : prefill ? view_.pe_groups : view_.de_groups)
      for (int e : g)
        if (view_.engines[e].seq != 0 || !view_.engines[e].can_take || faults_.engine_lost(e)) return false;
    return true;
  };
  if (!idle()) {
    since = -1;
    return;
  }
  const double now = be_.now();
  if (since < 0) since = now;
  if (now - since < kNoProgressWindow) return;
  std::ostringstream m;
  m << "policy " << policy_name_ << " placed no request on an idle " << (prefill ? "prefill" : "decode")
    << " engine from t = " << since << " s to " << now << " s while " << waiting << " waited and every "
    << (prefill ? "prefill" : "decode") << " engine could take one: its " << (prefill ? "place_prefill" : "place_decode")
    << " never places (the run would fetch forever)";
  throw NoProgressError(m.str());
}

// Both engines are known: the read stage picks the read path and loads the hit KV.
void PlacementStage::placed(Request& r) { next_.accept(r); }

void PlacementStage::place_again(Request& r) {
  auto& e = view_.engines[r.pe];
  e.tok -= r.prompt, e.seq -= 1;
  r.pe = -1;
  pe_waiting_.push_front({r.id, r.prompt, 0});
  accounts_.set_wait(r, WaitCause::PeAdmission);
  arm_fetches();
}

// Without the DE read path a prefill engine reads through its own node's SNIC: it takes requests only while that
// is up (the placements skip it; its group's other engines still take them).
void PlacementStage::on_snic_change(int node) {
  if (!pe_reads_only() || !view_.nodes[node].prefill) return;
  for (auto& e : view_.engines)
    if (e.node == node && e.prefill) e.can_take = view_.nodes[node].snic_up && !faults_.engine_lost(e.gpu);
}

void PlacementStage::on_engines_lost(const std::vector<int>& engines) {
  for (int e : engines) view_.engines[e].can_take = false;
}

void PlacementStage::drop_lost() {
  auto keep_live = [this](auto& q) {
    q.erase(std::remove_if(q.begin(), q.end(), [this](const auto& x) { return requests_[x.id].lost; }), q.end());
  };
  keep_live(pe_waiting_);
  keep_live(de_global_);
  std::deque<QueuedRequest> rerouted;
  for (size_t g = 0; g < de_queues_.size(); ++g) {
    keep_live(de_queues_[g]);
    const auto& engines = view_.de_groups[g];
    if (std::none_of(engines.begin(), engines.end(), [this](int e) { return faults_.engine_lost(e); })) continue;
    for (const auto& q : de_queues_[g]) {
      policy_.placement().unrouted(static_cast<int>(g), q);
      rerouted.push_back(q);
    }
    de_queues_[g].clear();
  }
  de_global_.insert(de_global_.begin(), rerouted.begin(), rerouted.end());
}

}  // namespace dualpath
