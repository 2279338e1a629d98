// Decode: the handoff (complete prompt KV in the DE buffer -> H2D into the reserved HBM, buffer released, new
// prompt blocks persisted from the buffer), then decode steps with all of an engine's requests in every batch,
// the engines of a DE group stepping together (EP). Steps are simulated in chunks of up to
// sim.decode_chunk_steps, ending at the first request that finishes, when requests handed off during a chunk join
// at its end; or (sim.decode_chunk_end = "steps") running past finishes, a round that ends inside a chunk ending
// at its own step and a handoff boarding the chunk at its next step boundary. Every Full Block that fills up is
// persisted: HBM -> DRAM through the CNIC (D2H), then DRAM -> storage through the SNIC.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>

#include "core/cluster/decode_stage.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

DecodeStage::DecodeStage(const StageShared& shared, const Scenario& scenario, const CostModel& cost,
                         const BlockIndex& blocks, EpAllToAll& ep, ActivityObserver* const& obs,
                         StageSignals& signals, KvIo& io, RequestStage& next, bool keep_contexts)
    : StageBase(shared),
      scenario_(scenario),
      cost_(cost),
      blocks_(blocks),
      ep_(ep),
      obs_(obs),
      signals_(signals),
      io_(io),
      next_(next),
      hbm_waiting_(view_.engines.size()),
      units_(layout_.de_units.size()),
      residency_(keep_contexts ? std::make_unique<DeResidency>(scenario.policy.de_retention) : nullptr),
      expiry_armed_(view_.engines.size(), false) {
  const auto& units = layout_.de_units;
  for (size_t u = 0; u < units.size(); ++u) {
    auto& s = units_[u];
    s.active.resize(units[u].size());
    s.joining.resize(units[u].size());
    s.boarded.resize(units[u].size());
  }
}

void DecodeStage::accept(Request& r) { start_handoff(r); }

void DecodeStage::start_handoff(Request& r) {
  r.t.handoff_start = be_.now();
  if (layout_.hbm_at_handoff) {
    // §2.5: the DE allocates HBM once the complete prompt KV is in its buffer. FIFO per engine: a later, smaller
    // request does not overtake a waiting one.
    auto& eng = view_.engines[r.de];
    auto& waiting = hbm_waiting_[r.de];
    eng.hbm.touch(be_.now());
    // (a round placed on the engine that kept its context holds its HBM since: handoff_hbm is 0)
    if (handoff_hbm(r) > 0 && (!waiting.empty() || !eng.hbm.try_reserve(handoff_hbm(r)))) {
      waiting.push_back(r.id);
      accounts_.set_wait(r, WaitCause::HandoffHbm);
      arm_expiry(r.de);
      return;
    }
  }
  start_h2d(r);
}

void DecodeStage::release_hbm(int engine, double bytes) {
  auto& eng = view_.engines[engine];
  eng.hbm.touch(be_.now());
  eng.hbm.release(bytes);
  auto& waiting = hbm_waiting_[engine];
  while (!waiting.empty()) {
    Request& w = requests_[waiting.front()];
    if (!eng.hbm.try_reserve(handoff_hbm(w))) break;
    waiting.pop_front();
    start_h2d(w);
  }
}

// The handoff proper, HBM in hand: H2D of the prompt KV, and the prompt's new Full Blocks written to storage.
void DecodeStage::start_h2d(Request& r) {
  accounts_.set_wait(r, WaitCause::Handoff);
  const int64_t id = r.id;
  io_.hand_off(r, [this, id] { handoff_done(requests_[id]); });
}

void DecodeStage::handoff_done(Request& r) {
  if (r.lost) return;  // its decode node was lost (node_down released what it held)
  r.t.handoff_end = be_.now();
  const int64_t prompt_blocks = blocks_.aligned(r.prompt);
  io_.handoff_finished(r);
  r.decode.persisted_upto_ = prompt_blocks;
  auto& eng = view_.engines[r.de];
  if (r.gen <= 1) {  // the first token was the last: nothing to decode
    eng.tok -= r.prompt + r.gen, eng.seq -= 1;
    release_hbm(r.de, layout_.kv_bytes(r.prompt + r.gen));
    io_.de_room_back();
    signals_.hand_over_settled();  // its prompt is persisted: the round is settled
    return;
  }
  accounts_.set_wait(r, WaitCause::DecodeJoin);
  const int unit = layout_.unit_of[r.de];
  const auto& members = layout_.de_units[unit];
  const size_t idx = static_cast<size_t>(std::find(members.begin(), members.end(), r.de) - members.begin());
  auto& s = units_[unit];
  // A chunk that runs past finishes (sim.decode_chunk_end = "steps") takes a handoff in at its next step
  // boundary, as step-by-step decoding would: waiting for the chunk's end would add up to decode_chunk_steps
  // steps to every round. The chunk's work was sized without it (one request of an engine's batch for a few
  // steps), and its step boundaries are the planned ones (collectives that stretch the chunk move them).
  if (s.running && !s.lost && scenario_.sim.decode_chunk_end == DecodeChunkEnd::Steps && s.step_time > 0) {
    const int k = static_cast<int>(std::ceil((be_.now() - s.chunk_start) / s.step_time));
    if (k < s.steps) {
      s.boarded[idx].emplace_back(r.id, k);
      r.decode.in_batch_ = true;
      accounts_.set_wait(r, WaitCause::Decode);
      io_.de_room_back();
      finish_at_step(unit, idx, r.id, k, r.gen - r.decode.generated());
      return;
    }
  }
  s.joining[idx].push_back(r.id);
  r.decode.in_batch_ = true;
  io_.de_room_back();
  maybe_start_chunk(unit);
}

void DecodeStage::maybe_start_chunk(int group) {
  auto& s = units_[group];
  if (s.running || s.lost) return;
  const auto& engines = layout_.de_units[group];
  int64_t min_left = -1, max_left = 0;
  size_t batch_total = 0;
  for (size_t i = 0; i < engines.size(); ++i) {
    for (int64_t id : s.joining[i]) {
      s.active[i].push_back(id);
      accounts_.set_wait(requests_[id], WaitCause::Decode);
    }
    s.joining[i].clear();
    for (int64_t id : s.active[i]) {
      const Request& r = requests_[id];
      const int64_t left = r.gen - r.decode.generated();
      if (min_left < 0 || left < min_left) min_left = left;
      max_left = std::max(max_left, left);
    }
    batch_total += s.active[i].size();
  }
  if (batch_total == 0) return;
  const bool past_finishes = scenario_.sim.decode_chunk_end == DecodeChunkEnd::Steps;
  const int steps = static_cast<int>(
      std::min<int64_t>(std::max(1, scenario_.sim.decode_chunk_steps), past_finishes ? max_left : min_left));
  // A request in the batch for part of the chunk (it finishes inside it) counts for that fraction of every
  // per-step sum: its context, its engine's batch, its EP bytes; so the chunk's work is that of its steps. Ending
  // at the first finish, every fraction is 1 and the sums are the plain ones.
  const auto share = [&](const Request& r) {
    const int64_t left = r.gen - r.decode.generated();
    return left >= steps ? 1.0 : static_cast<double>(left) / steps;
  };

  // Step time at the chunk's mid-point contexts, per layer: the slowest engine's attention, the replicated
  // weights and routed experts on the group's mean batch (EP), the EP dispatch + combine of the largest batch,
  // less what micro-batch overlap hides (CostModel::decode_layer); a one-engine (data-parallel) group has no EP.
  const double topk = scenario_.model.sparse_topk > 0 ? scenario_.model.sparse_topk : 1e300;
  int64_t tokens = 0;
  loads_.assign(engines.size(), DecodeEngineLoad{});
  std::vector<double> batches(engines.size());
  for (size_t i = 0; i < engines.size(); ++i) {
    DecodeEngineLoad& e = loads_[i];
    for (int64_t id : s.active[i]) {
      const Request& r = requests_[id];
      const double f = share(r);
      const int64_t here = std::min<int64_t>(steps, r.gen - r.decode.generated());  // its steps in this chunk
      const double c = static_cast<double>(r.prompt + r.decode.generated()) + here / 2.0;
      e.sum_context += f * c, e.sum_capped_context += f * std::min(c, topk);
      e.batch += f;
      tokens += here;
    }
    e.requests = static_cast<int64_t>(s.active[i].size());
    batches[i] = e.batch;
  }
  const int group_gpus = static_cast<int>(engines.size());
  const DecodeStep decode_step = cost_.decode_step(loads_, layout_.nodes_spanned(engines));
  const DecodeLayerParts& layer = decode_step.layer;
  const size_t slowest = decode_step.slowest;
  const double mean_batch = std::accumulate(batches.begin(), batches.end(), 0.0) / static_cast<double>(engines.size());
  // A "step" here is one generated token: with MTP a model step yields more than one, and its time is shared.
  const double layers_per_token = scenario_.model.decode_layers_per_token();
  const double step = mutant("free_decode_step") ? 0.0 : decode_step.token_seconds;
  decode_parts_.attention += layers_per_token * layer.attention * steps;
  decode_parts_.dense += layers_per_token * layer.dense * steps;
  decode_parts_.experts += layers_per_token * layer.experts * steps;
  decode_parts_.kernels += layers_per_token * layer.kernels * steps;
  decode_parts_.ep += layers_per_token * layer.ep * steps;
  decode_parts_.hidden += layers_per_token * layer.hidden * steps;
  decode_parts_.fitted += layers_per_token * layer.fitted * steps;

  s.running = true;
  s.steps = steps;
  s.step_time = step;
  s.chunk_start = be_.now();
  ComputeWork work;
  work.seconds = step * steps;
  work.layers = layout_.n_layers;
  work.tokens = tokens;
  work.decode = true;
  work.steps = steps;
  work.linear_tokens = mean_batch;
  work.weight_bytes_per_gpu = cost_.weight_bytes_per_gpu(group_gpus);
  for (int64_t id : s.active[slowest])
    work.seqs.push_back(SeqShape{requests_[id].prompt + requests_[id].decode.generated() + steps / 2, 1});
  // DeepEP low-latency kernels: one RDMA copy per routed expert on another node, for each of the 1 + mtp_depth
  // tokens a request carries through n_layers + mtp_depth layers per step, shared by the tokens the step yields.
  const ModelSpec& m = scenario_.model;
  const double rdma = m.decode_ep_rdma_bytes_per_token_layer(layout_.nodes_spanned(engines)) * (1.0 + m.mtp_depth) *
                      layers_per_token / layout_.n_layers;
  s.pending = 1;
  auto part_done = [this, group] {
    if (units_[group].lost) return;  // lost with a node mid-chunk
    if (--units_[group].pending == 0) chunk_done(group);
  };
  const auto collectives = EpAllToAll::flows(engines, batches, steps, rdma, layout_.n_layers);
  s.pending += collectives.empty() ? 0 : 1;  // the all-to-all ends as one (EpAllToAll::start)
  s.log_chunk =
      obs_->decode_chunk_started({group, engines[0], s.chunk_start, -1, steps, static_cast<int>(batch_total)});
  be_.compute(engines[0], work, part_done);
  ep_.start(engines, collectives, part_done);
  if (past_finishes)
    for (size_t i = 0; i < engines.size(); ++i)
      for (int64_t id : s.active[i])
        finish_at_step(group, i, id, 0, requests_[id].gen - requests_[id].decode.generated());
}

void DecodeStage::finish_at_step(int group, size_t i, int64_t id, int from, int64_t left) {
  auto& s = units_[group];
  if (from + left >= s.steps) return;  // its last token is the chunk's: chunk_done ends its round
  const double at = s.chunk_start + static_cast<double>(from + left) * s.step_time;
  const int f = from;
  be_.timer(std::max(0.0, at - be_.now()), [this, group, i, id, f] { finish_inside(group, i, id, f); });
}

// The round ends at its planned step, not at the chunk's end, so the agent's next round (think times are often 0),
// the HBM it frees and the write of its engine's last blocks (which the next round's read waits for,
// ReadStage::admit) come when they would step by step.
void DecodeStage::finish_inside(int group, size_t i, int64_t id, int from) {
  auto& s = units_[group];
  Request& r = requests_[id];
  if (s.lost || r.lost) return;  // lost with a node mid-chunk
  if (r.decode.generated() == 1) r.t.second_token = s.chunk_start + (from + 1) * s.step_time;
  r.decode.generated_ = r.gen;
  std::vector<AgentWrite> filled;
  const double bytes = claim_filled(r, filled);
  const auto& engines = layout_.de_units[group];
  io_.add_filled(engines[i], bytes, std::move(filled));
  std::vector<bool> forced(engines.size(), false);
  forced[i] = true;
  io_.flush(engines, forced, /*full_ones=*/false);
  end_round(r);
}

double DecodeStage::claim_filled(Request& r, std::vector<AgentWrite>& into) {
  const int64_t upto = blocks_.aligned(r.prompt + r.decode.generated());
  double bytes = 0;
  if (BlockRanges blocks = io_.claim_filled(r, upto); !blocks.empty()) {
    bytes = layout_.kv_bytes(BlockIndex::block_count(blocks) * blocks_.block_tokens());
    into.push_back(AgentWrite{r.agent, std::move(blocks)});
  }
  r.decode.persisted_upto_ = std::max(r.decode.persisted_upto(), upto);
  return bytes;
}

void DecodeStage::end_round(Request& r) {
  auto& eng = view_.engines[r.de];
  eng.tok -= r.prompt + r.gen, eng.seq -= 1;
  if (residency_) {  // pe-pull-from-de: the context stays pinned in the engine's HBM for the agent's next round
    expire_due();
    eng.hbm.touch(be_.now());
    residency_->keep(r.agent, r.de, r.prompt + r.gen, layout_.kv_bytes(r.prompt + r.gen), be_.now());
    if (!hbm_waiting_[r.de].empty()) arm_expiry(r.de);
  } else {
    release_hbm(r.de, layout_.kv_bytes(r.prompt + r.gen));
  }
  next_.accept(r);  // the round's end
}

int DecodeStage::claim(Request& r) {
  if (!residency_) return -1;
  expire_due();
  const DeResidency::Entry* e = residency_->find(r.agent);
  if (!e) return -1;
  auto& eng = view_.engines[e->engine];
  // The round takes all its decode HBM here, the kept context and the rest (so it never waits at the handoff behind
  // requests that may wait for the HBM it holds); if the rest does not fit, the context is dropped and the round is
  // placed as any other.
  const double rest = layout_.kv_bytes(r.prompt + r.gen) - e->bytes;
  if (r.hit <= 0 || e->tokens < r.hit || !eng.can_take || !eng.hbm.fits(rest) || mutant("no_resident_pull")) {
    const DeResidency::Entry d = residency_->drop(r.agent);
    if (eng.can_take) release_hbm(d.engine, d.bytes);  // (a lost engine's HBM went with it)
    return -1;
  }
  const DeResidency::Entry held = residency_->take(r.agent);
  eng.hbm.touch(be_.now());
  eng.hbm.try_reserve(rest);
  r.decode.resident_bytes_ = held.bytes + rest;
  return held.engine;
}

void DecodeStage::expire_due() {
  if (!residency_) return;
  for (const DeResidency::Entry& e : residency_->expire_until(be_.now()))
    if (view_.engines[e.engine].can_take) release_hbm(e.engine, e.bytes);
}

void DecodeStage::arm_expiry(int engine) {
  if (!residency_ || expiry_armed_[engine]) return;
  const double at = residency_->next_expiry(engine);
  if (at < 0) return;
  expiry_armed_[engine] = true;
  be_.timer(std::max(0.0, at - be_.now()), [this, engine] {
    expiry_armed_[engine] = false;
    expire_due();
    if (!hbm_waiting_[engine].empty()) arm_expiry(engine);  // still waiting: the next oldest
  });
}

void DecodeStage::chunk_done(int group) {
  auto& s = units_[group];
  s.running = false;
  de_busy_ += be_.now() - s.chunk_start;
  obs_->decode_chunk_ended(s.log_chunk, be_.now());
  const auto& engines = layout_.de_units[group];
  const double now = be_.now();
  const double per_step = (now - s.chunk_start) / s.steps;  // collectives slowed by KV traffic stretch steps
  std::vector<double> d2h(engines.size(), 0);
  std::vector<std::vector<AgentWrite>> written(engines.size());
  std::vector<int64_t> finished;
  // A request decodes from step `from` of the chunk (0, or where it boarded) to the chunk's end; one whose last
  // token came before that has finished already (finish_inside).
  const auto advance = [&](size_t i, int64_t id, int from) {
    Request& r = requests_[id];
    if (r.decode.generated() >= r.gen) return;
    if (r.decode.generated() == 1) r.t.second_token = s.chunk_start + (from + 1) * per_step;
    const int64_t here = std::min<int64_t>(s.steps - from, r.gen - r.decode.generated());
    r.decode.generated_ += here;
    d2h[i] += claim_filled(r, written[i]);
    if (r.decode.generated() >= r.gen) finished.push_back(id);
  };
  for (size_t i = 0; i < engines.size(); ++i) {
    auto& active = s.active[i];
    for (int64_t id : active) advance(i, id, 0);
    for (const auto& [id, from] : s.boarded[i]) {
      advance(i, id, from);
      active.push_back(id);
    }
    s.boarded[i].clear();
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](int64_t id) {
                                  Request& r = requests_[id];
                                  const bool out = r.decode.generated() >= r.gen;
                                  if (out) r.decode.in_batch_ = false;  // no part of the group reads it again
                                  return out;
                                }),
                 active.end());
  }
  std::vector<bool> engine_finished(engines.size(), false);
  for (int64_t id : finished)
    engine_finished[std::find(engines.begin(), engines.end(), requests_[id].de) - engines.begin()] = true;
  for (size_t i = 0; i < engines.size(); ++i) io_.add_filled(engines[i], d2h[i], std::move(written[i]));
  io_.flush(engines, engine_finished, /*full_ones=*/true);
  for (int64_t id : finished) end_round(requests_[id]);
  signals_.hand_over_settled();  // rounds that finished inside the chunk left its batch just now
  maybe_start_chunk(group);
}

void DecodeStage::on_unit_lost(size_t u, FaultRecord& rec) {
  units_[u].lost = true;
  if (residency_)
    for (int e : layout_.de_units[u]) residency_->drop_engine(e);  // the contexts it kept went with it
  io_.engines_lost(layout_.de_units[u], rec);
}

void DecodeStage::on_lost(const Request& r, bool engine_lost) {
  if (r.de < 0) return;
  auto& e = view_.engines[r.de];
  e.tok -= r.prompt + r.gen, e.seq -= 1;
  const bool waited = leave_hbm_wait(r);
  const bool holds_hbm = !layout_.hbm_at_handoff || (r.t.handoff_start >= 0 && !waited);
  if (!holds_hbm) {  // it may hold the prefix it was placed on the engine for (pe-pull-from-de)
    if (r.decode.resident_bytes() <= 0) return;
    if (engine_lost) e.hbm.release(r.decode.resident_bytes());
    else release_hbm(r.de, r.decode.resident_bytes());
    return;
  }
  if (engine_lost) e.hbm.release(layout_.kv_bytes(r.prompt + r.gen));
  else release_hbm(r.de, layout_.kv_bytes(r.prompt + r.gen));
}

bool DecodeStage::leave_hbm_wait(const Request& r) {
  auto& waiting = hbm_waiting_[static_cast<size_t>(r.de)];
  const auto w = std::find(waiting.begin(), waiting.end(), r.id);
  if (w == waiting.end()) return false;
  waiting.erase(w);
  return true;
}

void DecodeStage::drop_lost() {
  for (auto& waiting : hbm_waiting_)
    waiting.erase(std::remove_if(waiting.begin(), waiting.end(), [this](int64_t id) { return requests_[id].lost; }),
                  waiting.end());
  for (auto& s : units_) {
    if (!s.lost) continue;
    // Nothing of a lost unit reads its batch again (its requests are lost, or finished inside its last chunk).
    for (const auto& a : s.active)
      for (int64_t id : a) requests_[id].decode.in_batch_ = false;
    for (const auto& j : s.joining)
      for (int64_t id : j) requests_[id].decode.in_batch_ = false;
    for (const auto& b : s.boarded)
      for (const auto& [id, from] : b) requests_[id].decode.in_batch_ = false;
    for (auto& a : s.active) a.clear();
    for (auto& j : s.joining) j.clear();
    for (auto& b : s.boarded) b.clear();
  }
}

}  // namespace dualpath
