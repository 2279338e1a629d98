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

#include "core/cluster/decode_groups.hpp"

#include "core/cluster/kv_io.hpp"
#include "core/cluster/read_queues.hpp"
#include "core/cluster/storage_writes.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

DecodeGroups::DecodeGroups(const PhaseShared& shared, const Scenario& scenario, const CostModel& cost,
                           BlockIndex& blocks, TransferTotals& totals, EpAllToAll& ep, ActivityObserver* const& obs,
                           ClusterHooks& hooks, KvIo& io, KvSources& sources, StorageWrites& writes,
                           ReadQueues& reads, double persist_flush_bytes)
    : PhaseBase(shared),
      scenario_(scenario),
      cost_(cost),
      blocks_(blocks),
      totals_(totals),
      ep_(ep),
      obs_(obs),
      hooks_(hooks),
      io_(io),
      sources_(sources),
      writes_(writes),
      reads_(reads),
      persist_flush_bytes_(persist_flush_bytes),
      hbm_waiting_(view_.engines.size()),
      units_(layout_.de_units.size()) {
  const auto& units = layout_.de_units;
  for (size_t u = 0; u < units.size(); ++u) {
    auto& s = units_[u];
    s.active.resize(units[u].size());
    s.joining.resize(units[u].size());
    s.boarded.resize(units[u].size());
    s.unflushed_bytes.assign(units[u].size(), 0);
    s.unflushed_blocks.resize(units[u].size());
  }
}

void DecodeGroups::kv_arrived(Request& r) { start_handoff(r); }

void DecodeGroups::start_handoff(Request& r) {
  r.t.handoff_start = be_.now();
  if (layout_.hbm_at_handoff) {
    // §2.5: the DE allocates HBM once the complete prompt KV is in its buffer. FIFO per engine: a later, smaller
    // request does not overtake a waiting one.
    auto& eng = view_.engines[r.de];
    auto& waiting = hbm_waiting_[r.de];
    eng.hbm.touch(be_.now());
    if (!waiting.empty() || !eng.hbm.try_reserve(layout_.kv_bytes(r.prompt + r.gen))) {
      waiting.push_back(r.id);
      accounts_.set_wait(r, WaitCause::HandoffHbm);
      return;
    }
  }
  start_h2d(r);
}

void DecodeGroups::release_hbm(int engine, double bytes) {
  auto& eng = view_.engines[engine];
  eng.hbm.touch(be_.now());
  eng.hbm.release(bytes);
  auto& waiting = hbm_waiting_[engine];
  while (!waiting.empty()) {
    Request& w = requests_[waiting.front()];
    if (!eng.hbm.try_reserve(layout_.kv_bytes(w.prompt + w.gen))) break;
    waiting.pop_front();
    start_h2d(w);
  }
}

// The handoff proper, HBM in hand: H2D of the prompt KV, and the prompt's new Full Blocks written to storage.
void DecodeGroups::start_h2d(Request& r) {
  accounts_.set_wait(r, WaitCause::Handoff);
  io_.hand_off(r);
}

void DecodeGroups::handoff_done(Request& r) {
  if (r.lost) return;  // its decode node was lost (node_down released what it held)
  r.t.handoff_end = be_.now();
  const int64_t prompt_blocks = blocks_.aligned(r.prompt);
  io_.handoff_finished(r);
  r.persisted_upto = prompt_blocks;
  auto& eng = view_.engines[r.de];
  if (r.gen <= 1) {  // the first token was the last: nothing to decode
    eng.tok -= r.prompt + r.gen, eng.seq -= 1;
    release_hbm(r.de, layout_.kv_bytes(r.prompt + r.gen));
    io_.de_room_back();
    hooks_.hand_over_settled();  // its prompt is persisted: the round is settled
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
      r.in_decode_batch = true;
      accounts_.set_wait(r, WaitCause::Decode);
      io_.de_room_back();
      finish_at_step(unit, idx, r.id, k, r.gen - r.generated);
      return;
    }
  }
  s.joining[idx].push_back(r.id);
  r.in_decode_batch = true;
  io_.de_room_back();
  maybe_start_chunk(unit);
}

void DecodeGroups::maybe_start_chunk(int group) {
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
      const int64_t left = r.gen - r.generated;
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
    const int64_t left = r.gen - r.generated;
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
      const int64_t here = std::min<int64_t>(steps, r.gen - r.generated);  // its steps in this chunk
      const double c = static_cast<double>(r.prompt + r.generated) + here / 2.0;
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
    work.seqs.push_back(SeqShape{requests_[id].prompt + requests_[id].generated + steps / 2, 1});
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
  s.pending += static_cast<int>(collectives.size());
  s.log_chunk =
      obs_->decode_chunk_started({group, engines[0], s.chunk_start, -1, steps, static_cast<int>(batch_total)});
  be_.compute(engines[0], work, part_done);
  ep_.start(engines, collectives, part_done);
  if (past_finishes)
    for (size_t i = 0; i < engines.size(); ++i)
      for (int64_t id : s.active[i])
        finish_at_step(group, i, id, 0, requests_[id].gen - requests_[id].generated);
}

void DecodeGroups::finish_at_step(int group, size_t i, int64_t id, int from, int64_t left) {
  auto& s = units_[group];
  if (from + left >= s.steps) return;  // its last token is the chunk's: chunk_done ends its round
  const double at = s.chunk_start + static_cast<double>(from + left) * s.step_time;
  const int f = from;
  be_.timer(std::max(0.0, at - be_.now()), [this, group, i, id, f] { finish_inside(group, i, id, f); });
}

// The round ends at its planned step, not at the chunk's end, so the agent's next round (think times are often 0),
// the HBM it frees and the write of its engine's last blocks (which the next round's read waits for,
// ReadQueues::admit) come when they would step by step.
void DecodeGroups::finish_inside(int group, size_t i, int64_t id, int from) {
  auto& s = units_[group];
  Request& r = requests_[id];
  if (s.lost || r.lost) return;  // lost with a node mid-chunk
  if (r.generated == 1) r.t.second_token = s.chunk_start + (from + 1) * s.step_time;
  r.generated = r.gen;
  s.unflushed_bytes[i] += claim_filled(r, s.unflushed_blocks[i]);
  std::vector<bool> forced(s.unflushed_bytes.size(), false);
  forced[i] = true;
  flush(group, forced, /*full_ones=*/false);
  end_round(r);
}

double DecodeGroups::claim_filled(Request& r, std::vector<AgentWrite>& into) {
  const int64_t upto = blocks_.aligned(r.prompt + r.generated);
  double bytes = 0;
  if (BlockRanges blocks = io_.claim_filled(r, upto); !blocks.empty()) {
    bytes = layout_.kv_bytes(BlockIndex::block_count(blocks) * blocks_.block_tokens());
    into.push_back(AgentWrite{r.agent, std::move(blocks)});
  }
  r.persisted_upto = std::max(r.persisted_upto, upto);
  return bytes;
}

void DecodeGroups::end_round(Request& r) {
  auto& eng = view_.engines[r.de];
  eng.tok -= r.prompt + r.gen, eng.seq -= 1;
  release_hbm(r.de, layout_.kv_bytes(r.prompt + r.gen));
  hooks_.round_done(r);
}

void DecodeGroups::chunk_done(int group) {
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
    if (r.generated >= r.gen) return;
    if (r.generated == 1) r.t.second_token = s.chunk_start + (from + 1) * per_step;
    const int64_t here = std::min<int64_t>(s.steps - from, r.gen - r.generated);
    r.generated += here;
    d2h[i] += claim_filled(r, written[i]);
    if (r.generated >= r.gen) finished.push_back(id);
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
                                  const bool out = r.generated >= r.gen;
                                  if (out) r.in_decode_batch = false;  // no part of the group reads it again
                                  return out;
                                }),
                 active.end());
  }
  std::vector<bool> engine_finished(engines.size(), false);
  for (int64_t id : finished)
    engine_finished[std::find(engines.begin(), engines.end(), requests_[id].de) - engines.begin()] = true;
  for (size_t i = 0; i < engines.size(); ++i) {
    s.unflushed_bytes[i] += d2h[i];
    for (auto& w : written[i]) s.unflushed_blocks[i].push_back(std::move(w));
  }
  flush(group, engine_finished, /*full_ones=*/true);
  for (int64_t id : finished) end_round(requests_[id]);
  hooks_.hand_over_settled();  // rounds that finished inside the chunk left its batch just now
  maybe_start_chunk(group);
}

void DecodeGroups::flush(int group, const std::vector<bool>& forced, bool full_ones) {
  auto& s = units_[group];
  const auto& engines = layout_.de_units[group];
  // Persists the blocks that filled up: D2H through the engine's CNIC, then the node's SNIC to storage. An
  // engine's blocks are batched until one of its requests finishes (the agent's next read needs them) or
  // ClusterTuning::persist_flush_bytes accumulate; the D2H copies of a node are followed by one storage write.
  struct NodeFlush {
    int pending = 0;
    double bytes = 0;
    std::vector<AgentWrite> writes;
    int64_t write = -1;  // its entry among the node's writes in flight (StorageWrites::track)
  };
  std::map<int, std::shared_ptr<NodeFlush>> flushes;
  for (size_t i = 0; i < engines.size(); ++i) {
    const bool full = full_ones && s.unflushed_bytes[i] >= persist_flush_bytes_;
    if (s.unflushed_bytes[i] <= 0 || !(forced[i] || full)) continue;
    auto& nf = flushes[layout_.node_of(engines[i])];
    if (!nf) nf = std::make_shared<NodeFlush>();
    nf->pending += 1;
    nf->bytes += s.unflushed_bytes[i];
    for (auto& w : s.unflushed_blocks[i]) nf->writes.push_back(std::move(w));
    const int gpu = engines[i];
    const double bytes = s.unflushed_bytes[i];
    s.unflushed_bytes[i] = 0;
    s.unflushed_blocks[i].clear();
    totals_.d2h += bytes;
    auto flush = nf;
    const int node = layout_.node_of(gpu);
    be_.transfer(Hop::D2H, Place{Loc::Hbm, gpu}, Place{Loc::Dram, gpu}, bytes, TrafficClass::Kv,
                 [this, flush, node] {
                   if (--flush->pending > 0 || !writes_.live(node, flush->write)) return;
                   totals_.storage_write += flush->bytes;
                   BlockRanges blocks;
                   for (const auto& w : flush->writes) blocks.insert(blocks.end(), w.blocks.begin(), w.blocks.end());
                   sources_.write_through(node, blocks);  // beside the storage write
                   writes_.persist(node, flush->write, blocks, flush->bytes, [this, flush] {
                     for (const auto& w : flush->writes) {
                       blocks_.persist(w.blocks);
                       blocks_.write_finished(w.agent);
                     }
                     reads_.pump_all();
                   });
                 });
  }
  if (writes_.tracking())  // a node can be lost: its flushes in flight are undone with it (node_down)
    for (auto& [node, nf] : flushes) {
      BlockRanges blocks;
      std::vector<int> agents;
      for (const auto& w : nf->writes) {
        blocks.insert(blocks.end(), w.blocks.begin(), w.blocks.end());
        agents.push_back(w.agent);
      }
      nf->write = writes_.track(node, blocks, std::move(agents), nf->bytes);
    }
}

void DecodeGroups::lose_unit(size_t u, FaultRecord& rec) {
  auto& s = units_[u];
  s.lost = true;
  for (size_t k = 0; k < s.unflushed_blocks.size(); ++k) {
    for (const AgentWrite& w : s.unflushed_blocks[k]) {
      blocks_.unclaim(w.blocks);
      blocks_.write_finished(w.agent);
    }
    rec.writes_lost += s.unflushed_bytes[k];
    s.unflushed_blocks[k].clear();
    s.unflushed_bytes[k] = 0;
  }
}

bool DecodeGroups::leave_hbm_wait(const Request& r) {
  auto& waiting = hbm_waiting_[static_cast<size_t>(r.de)];
  const auto w = std::find(waiting.begin(), waiting.end(), r.id);
  if (w == waiting.end()) return false;
  waiting.erase(w);
  return true;
}

void DecodeGroups::drop_lost() {
  for (auto& waiting : hbm_waiting_)
    waiting.erase(std::remove_if(waiting.begin(), waiting.end(), [this](int64_t id) { return requests_[id].lost; }),
                  waiting.end());
  for (auto& s : units_) {
    if (!s.lost) continue;
    // Nothing of a lost unit reads its batch again (its requests are lost, or finished inside its last chunk).
    for (const auto& a : s.active)
      for (int64_t id : a) requests_[id].in_decode_batch = false;
    for (const auto& j : s.joining)
      for (int64_t id : j) requests_[id].in_decode_batch = false;
    for (const auto& b : s.boarded)
      for (const auto& [id, from] : b) requests_[id].in_decode_batch = false;
    for (auto& a : s.active) a.clear();
    for (auto& j : s.joining) j.clear();
    for (auto& b : s.boarded) b.clear();
  }
}

}  // namespace dualpath
