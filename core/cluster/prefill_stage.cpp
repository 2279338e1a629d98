// Prefill: PE groups run forward passes over batches formed under the compute quota. With layerwise prefill a
// forward is streamed in stages of a few layers: stage s+1's hit KV loads (PE buffer -> HBM by CNIC loopback, or
// DE buffer -> HBM over the compute network) while stage s computes, and stage s's KV leaves for the DE buffer
// while s+1 computes; HBM holds two stages of the batch's KV. Without it (basic) the whole batch's KV is loaded
// into HBM first, the forward runs, then the KV goes to the DE. The engines of a group synchronise at every
// layer (EP all-to-all), so a stage takes the slowest engine's attention plus the shared linear/MoE time.
#include <algorithm>
#include <map>

#include "core/cluster/prefill_stage.hpp"

#include "core/cluster/read_path.hpp"

#include "core/sched/quota_batcher.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

PrefillStage::PrefillStage(const StageShared& shared, const Scenario& scenario, const CostModel& cost,
                           const PolicyFeatures& features, EpAllToAll& ep, ActivityObserver* const& obs,
                           StageSignals& signals, KvIo& io, RequestStage& next)
    : StageBase(shared),
      scenario_(scenario),
      cost_(cost),
      features_(features),
      ep_(ep),
      obs_(obs),
      signals_(signals),
      io_(io),
      next_(next),
      ready_(view_.engines.size()),
      units_(layout_.pe_units.size()) {}

void PrefillStage::accept(Request& r) {
  ready_[r.pe].push_back(r.id);
  accounts_.set_wait(r, WaitCause::PeQueue);
  maybe_start(layout_.unit_of[r.pe]);
}

namespace {
std::vector<int> stage_layers(int n_layers, bool layerwise, int layer_group) {
  if (!layerwise) return {n_layers};
  // Automatic fidelity: 8 stages per forward (docs/assumptions.md measures the error against per-layer).
  const int per = layer_group > 0 ? layer_group : std::max(1, (n_layers + 7) / 8);
  std::vector<int> out;
  for (int left = n_layers; left > 0; left -= per) out.push_back(std::min(per, left));
  return out;
}
}  // namespace

void PrefillStage::maybe_start(int group) {
  auto& gs = units_[group];
  if (gs.current || gs.lost) return;  // the group is computing; the next forward is formed when it finishes
  const auto& engines = layout_.pe_units[group];
  const double scope = scenario_.policy.quota_scope == QuotaScope::Forward ? layout_.n_layers : 1.0;
  const int group_gpus = static_cast<int>(engines.size());
  auto predict = [&](int64_t cached, int64_t fresh) {
    return cost_.prefill_attention(cached, fresh, group_gpus) * scope;
  };

  auto f = std::make_unique<PrefillForward>();
  f->group = group;
  f->batch.resize(engines.size());
  f->hbm_per_engine.assign(engines.size(), 0);
  bool any = false;
  // Streamed buffers: a PE-path request's first forward reserves the DE buffer room its prompt KV will take; one
  // that does not fit stays ready (charged to the DE buffer) and the others go ahead of it.
  const bool jit_de = io_.reserves_de_room();
  std::map<int, double> de_free;  // DE node -> buffer room left for this forward's reservations
  gs.waits_for_de_room = false;
  auto needs_de_room = [&](const Request& r) { return jit_de && r.buffer_bytes[ReadSide::De] <= 0; };
  // Layerwise loading, per request: with policy.layerwise_min_tokens (SGLang's minimum prefill length for the layer
  // pipeline) a request with fewer new tokens left moves its whole KV at once (BatchEntry::streamed).
  const int64_t min_stream = scenario_.policy.layerwise_min_tokens;
  auto streams = [&](int64_t fresh) {
    return features_.layerwise && (fresh >= min_stream || mutant("min_tokens_ignored"));
  };
  for (size_t i = 0; i < engines.size(); ++i) {
    auto& ready = ready_[engines[i]];
    if (ready.empty()) continue;
    std::vector<BatchCandidate> cands;
    std::vector<int64_t> ids;  // the candidates' request ids
    cands.reserve(ready.size());
    for (int64_t id : ready) {
      Request& r = requests_[id];
      if (needs_de_room(r)) {
        const int node = layout_.node_of(r.de);
        auto it = de_free.find(node);
        if (it == de_free.end()) it = de_free.emplace(node, view_.nodes[node].buffer.free()).first;
        if (it->second < de_buffer_bytes(r) * (1 - 1e-12)) {
          gs.waits_for_de_room = true;
          accounts_.set_wait(r, WaitCause::DeBuffer);
          continue;
        }
        it->second -= de_buffer_bytes(r);  // tentative: given back below if the quota leaves the request out
      }
      const int64_t cached = r.hit + r.prefill.computed();
      const int64_t fresh = r.fresh - r.prefill.computed();
      // (a gdr read's hit is in this GPU's HBM already, held since its read)
      cands.push_back({cached, fresh,
                       streams(fresh) ? 0.0 : std::max(0.0, layout_.kv_bytes(cached + fresh) - r.read.pe_hbm_bytes())});
      ids.push_back(id);
    }
    // Streamed requests hold two stages of KV (not counted); the others their whole KV, within the engine's HBM.
    const bool hbm_bound = !features_.layerwise || min_stream > 0;
    BatchLimits limits{mutant("no_quota") ? 1e300 : scenario_.policy.compute_quota,
                       hbm_bound ? view_.engines[engines[i]].hbm.free() : 0.0};
    const auto items = form_batch(cands, limits, predict);
    std::vector<bool> taken(ids.size(), false);
    std::vector<int64_t> completed;
    for (const auto& it : items) {
      taken[it.index] = true;
      Request& r = requests_[ids[it.index]];
      if (needs_de_room(r)) {
        accounts_.reserve_buffer(r, layout_.node_of(r.de), de_buffer_bytes(r));
      }
      BatchEntry e{r.id, r.hit + r.prefill.computed(), it.fresh, 0, r.prefill.computed() + it.fresh == r.fresh};
      e.streamed = streams(cands[it.index].fresh);
      // The first chunk also sends the hit KV read through the PE node (the DE buffer already has the rest), unless
      // the DE node reads the hit itself (de-prefetch: P->D carries only the delta).
      const bool de_holds_hit = r.read.prefetch() != ReadHalf::None && !mutant("prefetch_sends_whole");
      e.send_tokens = it.fresh + (r.prefill.computed() == 0 && !de_holds_hit ? r.read.pe_hit() : 0);
      if (r.t.prefill_start < 0) r.t.prefill_start = be_.now();
      r.prefill.computed_ += it.fresh;
      f->hbm_per_engine[i] += cands[it.index].hbm_bytes;
      if (e.last_chunk) completed.push_back(r.id);
      f->batch[i].push_back(e);
      any = true;
    }
    for (size_t k = 0; k < ids.size(); ++k) {  // candidates the quota left out: give back their tentative room
      if (taken[k]) continue;
      Request& r = requests_[ids[k]];
      if (needs_de_room(r)) de_free[layout_.node_of(r.de)] += de_buffer_bytes(r);
      accounts_.set_wait(r, WaitCause::PeQueue);  // it has its room if it needs any; it waits for the PE now
    }
    // Completed requests leave the ready queue; a chunked one stays in it for the next forward.
    if (!completed.empty()) {
      std::deque<int64_t> kept;
      size_t c = 0;
      for (int64_t id : ready) {
        if (c < completed.size() && completed[c] == id) ++c;
        else kept.push_back(id);
      }
      ready.swap(kept);
    }
  }
  if (!any) return;
  f->start = be_.now();
  for (size_t i = 0; i < engines.size(); ++i) view_.engines[engines[i]].hbm.try_reserve(f->hbm_per_engine[i]);
  f->layers = stage_layers(layout_.n_layers, features_.layerwise, scenario_.sim.layer_group);
  const size_t n = f->layers.size();
  f->loads_pending.assign(n, 0), f->sends_pending.assign(n, 0), f->loaded.assign(n, false);
  const PrefillForward& fr = *f;
  // (Two captures fit std::function's own storage: no allocation per forward when nothing keeps the record.)
  f->log_forward = obs_->forward_started(
      [this, &fr] {
        ForwardRecord rec;
        rec.unit = fr.group, rec.leader_gpu = layout_.pe_units[fr.group][0], rec.start = be_.now();
        rec.stages = static_cast<int>(fr.layers.size());
        for (const auto& per_engine : fr.batch)
          for (const auto& e : per_engine) {
            ++rec.requests, rec.fresh_tokens += e.fresh;
            rec.request_ids.push_back(e.request);
          }
        return rec;
      },
      f->layers);
  gs.current = std::move(f);
  mark(*gs.current, WaitCause::KvLoad);
  try_compute(*gs.current);
}

void PrefillStage::mark(const PrefillForward& f, WaitCause c) {
  for (const auto& per_engine : f.batch)
    for (const auto& e : per_engine) accounts_.set_wait(requests_[e.request], c);
}

void PrefillStage::pump() {
  for (size_t g = 0; g < layout_.pe_units.size(); ++g)
    if (!units_[g].current && units_[g].waits_for_de_room) maybe_start(static_cast<int>(g));
}

// Streamed buffers: once a stage's Layer Blocks are in HBM, the PE buffer no longer holds them for requests whose
// prefill ends with this forward (an earlier chunk's forward keeps them: later chunks reload the cached KV).
void PrefillStage::release_loaded_layers(const PrefillForward& f, int stage) {
  if (!layout_.streamed_buffers) return;
  const auto& engines = layout_.pe_units[f.group];
  std::vector<int> nodes;
  for (size_t i = 0; i < engines.size(); ++i)
    for (const auto& e : f.batch[i]) {
      Request& r = requests_[e.request];
      const double share =
          static_cast<double>(e.layers_moved(f.layers, stage, layout_.n_layers, true)) / layout_.n_layers;
      if (!e.last_chunk || r.read.side() == ReadSide::De || r.read.pe_hit_bytes() <= 0 || r.lost || share <= 0 ||
          r.read.pe_hbm_bytes() > 0)  // (a gdr read holds no PE buffer)
        continue;
      accounts_.release_buffer(r, layout_.node_of(r.pe), r.read.pe_hit_bytes() * share);
      if (std::find(nodes.begin(), nodes.end(), layout_.node_of(r.pe)) == nodes.end())
        nodes.push_back(layout_.node_of(r.pe));
    }
  for (int n : nodes) signals_.pe_room_back(n);
}

void PrefillStage::start_loads(PrefillForward& f, int stage) {
  f.loads_started = stage + 1;
  obs_->stage_point(f.log_forward, stage, ActivityObserver::StagePoint::LoadStart, be_.now());
  const int count = io_.load_stage(f, stage, *this);
  f.loads_pending[stage] = count;
  if (count == 0) {
    f.loaded[stage] = true;
    obs_->stage_point(f.log_forward, stage, ActivityObserver::StagePoint::LoadEnd, be_.now());
    if (io_.moves_kv()) release_loaded_layers(f, stage);
  }
}

void PrefillStage::load_ended(PrefillForward& f, int stage) {
  if (f.lost) return;
  if (--f.loads_pending[stage] == 0) {
    obs_->stage_point(f.log_forward, stage, ActivityObserver::StagePoint::LoadEnd, be_.now());
    f.loaded[stage] = true;
    release_loaded_layers(f, stage);
    try_compute(f);
  }
}

void PrefillStage::send_ended(PrefillForward& f, int stage) {
  if (!f.lost && --f.sends_pending[stage] == 0) send_done(f, stage);
}

// Advances the pipeline: starts the next stage's loads (at most two stages resident, loads in order) and the
// next stage's compute once its KV is in HBM.
void PrefillStage::try_compute(PrefillForward& f) {
  const int n = static_cast<int>(f.layers.size());
  while (f.loads_started < n && f.loads_started <= f.computed + 1 &&
         (f.loads_started == 0 || f.loaded[f.loads_started - 1]))
    start_loads(f, f.loads_started);
  if (f.computing || f.computed >= n || !f.loaded[f.computed]) return;

  const int stage = f.computed;
  f.computing = true;
  mark(f, WaitCause::PrefillCompute);
  obs_->stage_point(f.log_forward, stage, ActivityObserver::StagePoint::ComputeStart, be_.now());
  const auto& engines = layout_.pe_units[f.group];
  // Per-layer time: the slowest engine's attention, then linear/MoE on the group's mean token count (EP
  // spreads expert work evenly); a data-parallel group of one engine just uses its own tokens.
  double max_attn = 0, attn_sum = 0, tokens_total = 0, flops = 0;
  size_t slowest = 0;
  std::vector<double> tokens(engines.size(), 0);
  for (size_t i = 0; i < engines.size(); ++i) {
    double attn = 0;
    for (const auto& e : f.batch[i]) {
      attn += cost_.prefill_attention(e.cached, e.fresh, static_cast<int>(engines.size()));
      flops += cost_.attention_layer_flops(e.cached, e.fresh);
      tokens[i] += static_cast<double>(e.fresh);
    }
    if (attn > max_attn || i == 0) max_attn = attn, slowest = i;
    attn_sum += attn;
    tokens_total += tokens[i];
  }
  const double mean_tokens = tokens_total / static_cast<double>(engines.size());
  const double linear = cost_.prefill_linear(mean_tokens, static_cast<int>(engines.size()));  // + fixed costs
  const double layer_time = max_attn + linear;
  const int layers = f.layers[stage];
  // Lockstep balance: the stage's time if every engine's attention were the group's mean, against the slowest's.
  pe_stage_seconds_ += layer_time * layers;
  pe_balanced_seconds_ += (attn_sum / static_cast<double>(engines.size()) + linear) * layers;
  ComputeWork work;
  work.seconds = layer_time * layers;
  work.flops = (flops + tokens_total * cost_.linear_flops_per_token_layer()) * layers;
  work.layers = layers;
  work.tokens = static_cast<int64_t>(tokens_total);
  work.linear_tokens = mean_tokens;
  work.weight_bytes_per_gpu = cost_.weight_bytes_per_gpu(static_cast<int>(engines.size()));
  for (const auto& e : f.batch[slowest]) work.seqs.push_back(SeqShape{e.cached, e.fresh});

  // The stage ends when its compute and its EP all-to-all traffic are both done (DeepSeek overlaps them with
  // two micro-batches). loads_pending[stage] is zero by now and is reused to count the parts.
  PrefillForward* fp = &f;
  auto part_done = [this, fp, stage] {
    if (fp->lost) return;  // its group was lost with a node
    if (--fp->loads_pending[stage] == 0) compute_done(*fp, stage);
  };
  // EP all-to-all per stage rather than per forward, so that model-traffic bursts interleave with the next stage's
  // KV loads as they do per layer. DeepEP normal kernels: one copy per (token, remote node with one of its experts)
  // when the model gives moe_topk (forwarded over NVLink there), else one per remote expert.
  const auto collectives =
      EpAllToAll::flows(engines, tokens, 1.0,
                        scenario_.model.prefill_ep_rdma_bytes_per_token_layer(layout_.nodes_spanned(engines)), layers);
  f.loads_pending[stage] = collectives.empty() ? 1 : 2;  // compute, and the all-to-all as one (EpAllToAll::start)
  be_.compute(engines[0], work, [this, fp, stage, part_done] {
    if (!fp->lost && fp->loads_pending[stage] > 1) mark(*fp, WaitCause::EpAllToAll);  // the all-to-all outlasts compute
    part_done();
  });
  ep_.start(engines, collectives, part_done);
}

void PrefillStage::compute_done(PrefillForward& f, int stage) {
  f.computing = false;
  f.computed = stage + 1;
  obs_->stage_point(f.log_forward, stage, ActivityObserver::StagePoint::ComputeEnd, be_.now());
  const int count = io_.send_stage(f, stage, *this);
  f.sends_pending[stage] = count;
  const bool last = f.computed == static_cast<int>(f.layers.size());
  if (!last) mark(f, WaitCause::KvLoad);  // until the next stage's compute starts (maybe right now)
  if (last) forward_finished(f);  // may hand the forward over to the draining list
  if (count == 0) send_done(f, stage);
  else if (!last) try_compute(f);
}

// The forward's compute is done: first tokens are out, the group can start its next forward while the tail of
// the KV is still streaming to the DE buffers.
void PrefillStage::forward_finished(PrefillForward& f) {
  f.compute_finished = true;
  pe_busy_ += be_.now() - f.start;
  obs_->forward_compute_end(f.log_forward, be_.now());
  const auto& engines = layout_.pe_units[f.group];
  for (size_t i = 0; i < engines.size(); ++i) {
    auto& eng = view_.engines[engines[i]];
    eng.hbm.release(f.hbm_per_engine[i]);
    for (const auto& e : f.batch[i]) {
      Request& r = requests_[e.request];
      if (r.lost) continue;  // node_down released what it held
      if (!e.last_chunk) {
        accounts_.set_wait(r, WaitCause::PeQueue);  // back in the ready queue for its next chunk
        continue;
      }
      if (r.read.pe_hbm_bytes() > 0) {  // a gdr read's hit leaves the GPU's HBM with its prefill
        eng.hbm.release(r.read.pe_hbm_bytes());
        r.read.pe_hbm_bytes_ = 0;
      }
      r.t.first_token = be_.now();
      signals_.first_token(r);
      accounts_.set_wait(r, WaitCause::KvTail);
      r.decode.generated_ = 1;
      eng.tok -= r.prompt, eng.seq -= 1;
      // Reserved buffers give the PE buffer back now; streamed ones did it layer by layer (this clears rounding).
      if (r.buffer_bytes[ReadSide::Pe] > 0)
        accounts_.release_buffer(r, layout_.node_of(r.pe), r.buffer_bytes[ReadSide::Pe]);
      // The DE will persist the prompt's new full blocks; the agent's next read waits for that write.
      io_.prompt_computed(r);
      if (r.gen <= 1) signals_.round_done(r);  // the first token was the last one
    }
  }
  io_.pe_room_back();
  auto& gs = units_[f.group];
  gs.draining.push_back(std::move(gs.current));
  const int group = f.group;
  maybe_start(group);
}

void PrefillStage::send_done(PrefillForward& f, int stage) {
  (void)stage;
  ++f.sends_finished;
  if (f.sends_finished < static_cast<int>(f.layers.size()) || !f.compute_finished) {
    if (!f.compute_finished) try_compute(f);
    return;
  }
  // Every stage's KV is in the DE buffers: requests finishing with this forward can be handed off.
  std::vector<int64_t> arrived;
  for (const auto& per_engine : f.batch)
    for (const auto& e : per_engine)
      if (e.last_chunk && !requests_[e.request].lost) arrived.push_back(e.request);
  auto& draining = units_[f.group].draining;
  draining.erase(std::remove_if(draining.begin(), draining.end(), [&](const auto& p) { return p.get() == &f; }),
                 draining.end());  // f is destroyed here; only `arrived` is used below
  for (int64_t id : arrived) next_.accept(requests_[id]);
}

void PrefillStage::on_unit_lost(size_t u) {
  auto& gs = units_[u];
  gs.lost = true;
  if (gs.current) gs.draining.push_back(std::move(gs.current));
  for (auto& f : gs.draining) {
    f->lost = true;
    lost_forwards_.push_back(std::move(f));
  }
  gs.draining.clear();
}

void PrefillStage::on_lost(Request& r) {
  if (r.pe >= 0 && r.t.first_token < 0) {
    auto& e = view_.engines[r.pe];
    e.tok -= r.prompt, e.seq -= 1;
    e.hbm.release(r.read.pe_hbm_bytes());  // a gdr read's hit (the engine may be gone with it)
    r.read.pe_hbm_bytes_ = 0;
  }
}

void PrefillStage::drop_lost() {
  for (auto& ready : ready_)
    ready.erase(std::remove_if(ready.begin(), ready.end(), [this](int64_t id) { return requests_[id].lost; }),
                ready.end());
}

}  // namespace dualpath
