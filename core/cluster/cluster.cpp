// The composition root: Cluster setup (layout, view, services, stages), the agents' rounds and the signals the
// stages send back up the pipeline.
#include "core/cluster/cluster.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/config/input_error.hpp"
#include "core/cluster/cluster_stages.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

namespace {
std::vector<std::vector<int>> make_groups(int first_node, int nodes, int gpn, int group_gpus) {
  std::vector<std::vector<int>> groups;
  const int total = nodes * gpn;
  for (int start = 0; start < total; start += group_gpus) {
    std::vector<int> g;
    for (int i = start; i < std::min(total, start + group_gpus); ++i) g.push_back(first_node * gpn + i);
    groups.push_back(std::move(g));
  }
  return groups;
}
}  // namespace

Cluster::Cluster(const Scenario& scenario, std::vector<Agent> agents, Backend& backend, ClusterTuning tuning)
    : sc_(scenario),
      be_(backend),
      tuning_(tuning),
      cost_(scenario.model, scenario.pe_topology().gpu, EpNetwork::of(scenario.pe_topology())),
      decode_cost_(scenario.model, scenario.de_topology().gpu, EpNetwork::of(scenario.de_topology())),
      policy_(make_policy(scenario.policy)),
      features_(effective_features(scenario.policy)),
      blocks_(agents, scenario.policy.block_tokens),
      agents_(std::move(agents)),
      accounts_(be_, view_, scenario.outputs.link_sample_interval),
      ep_(be_, totals_, scenario.topology.gpus_per_node),
      ports_(scenario.topology.gpus_per_node, scenario.sim.kv_port == KvPort::Node,
             static_cast<size_t>(scenario.deployment.prefill_nodes + scenario.deployment.decode_nodes) *
                 static_cast<size_t>(scenario.topology.gpus_per_node)) {
  const auto& topo = sc_.topology;
  const auto& dep = sc_.deployment;
  const int nodes = dep.prefill_nodes + dep.decode_nodes;
  layout_.gpus_per_node = topo.gpus_per_node;
  layout_.n_layers = sc_.model.n_layers;
  layout_.kv_per_token = sc_.model.kv_bytes_per_token();
  layout_.kv_per_token_layer = sc_.model.kv_bytes_per_token_one_layer();
  layout_.per_node_ports = sc_.sim.kv_port == KvPort::Node;
  layout_.streamed_buffers = sc_.policy.buffer == BufferLifecycle::Stream;
  layout_.gdr = sc_.topology.storage.gdr;
  layout_.hbm_at_handoff = sc_.policy.de_hbm == DeHbmAt::Handoff;
  const int gpus_per_node = layout_.gpus_per_node;
  if (sc_.workload.stop != StopMode::None) {
    if (!be_.can_stop())
      throw InputError(sc_.source_file + ": /workload/stop",
                       "\"slo\" needs a backend that can end a run early (the simulator); this one cannot, use \"none\"");
    StopRuleSpec rule;
    rule.ttft_slo = sc_.slo.ttft;
    rule.load_flat = sc_.workload.stop == StopMode::Slo;
    if (sc_.workload.duration > 0) rule.arrivals_end = sc_.workload.duration;
    stop_rule_ = std::make_unique<StopRule>(rule);
  }
  view_.gpus_per_node = gpus_per_node;
  view_.z_factor = sc_.policy.z_factor;
  view_.pe_groups = make_groups(0, dep.prefill_nodes, gpus_per_node, dep.pe_group_gpus);
  view_.de_groups = make_groups(dep.prefill_nodes, dep.decode_nodes, gpus_per_node, dep.de_group_gpus);
  view_.nodes.resize(nodes);
  for (int n = 0; n < nodes; ++n) {
    view_.nodes[n].prefill = n < dep.prefill_nodes;
    view_.nodes[n].buffer = BufferPool(sc_.node_topology(n).dram_buffer_bytes);
    view_.nodes[n].read_bw = sc_.node_topology(n).snic_read_bw();
  }
  view_.engines.resize(static_cast<size_t>(nodes) * gpus_per_node);
  check_weights_fit(sc_);
  if (sc_.topology.storage.gdr && features_.dram_pool)
    throw InputError(sc_.source_file + ": /topology/storage/gdr",
                     "policy '" + sc_.policy.name + "' serves hits from a DRAM pool into host memory, which GPUDirect "
                     "Storage reads bypass; expected false");
  check_step_profile(sc_);
  auto setup_engines = [&](const std::vector<std::vector<int>>& groups, bool prefill, int group_gpus) {
    const Topology& role = prefill ? sc_.pe_topology() : sc_.de_topology();
    const double hbm_kv = role.gpu.hbm_bytes - cost_.weight_bytes_per_gpu(group_gpus);  // > 0: check_weights_fit
    for (size_t g = 0; g < groups.size(); ++g)
      for (int gpu : groups[g]) {
        auto& e = view_.engines[gpu];
        e.gpu = gpu, e.node = gpu / gpus_per_node, e.group = static_cast<int>(g), e.prefill = prefill;
        e.hbm = BufferPool(hbm_kv);
      }
  };
  setup_engines(view_.pe_groups, true, dep.pe_group_gpus);
  setup_engines(view_.de_groups, false, dep.de_group_gpus);

  // alpha: tokens one node reads from storage in alpha_seconds; beta: prompt tokens one GPU prefills in
  // beta_seconds at the workload's mean round shape (§A.4 profiles both in advance).
  // (Algorithm 1 compares alpha with a PE node's read queue: the prefill nodes' SNIC.)
  view_.alpha_tokens =
      static_cast<int64_t>(sc_.policy.alpha_seconds * sc_.pe_topology().snic_read_bw() / layout_.kv_per_token);
  double ctx_sum = 0, app_sum = 0, n_rounds = 0;
  for (const auto& a : agents_) {
    int64_t ctx = 0;
    for (const auto& r : a.rounds) {
      ctx_sum += static_cast<double>(ctx), app_sum += static_cast<double>(r.append), n_rounds += 1;
      ctx += r.append + r.gen;
    }
  }
  rounds_total_ = static_cast<int64_t>(n_rounds);
  const int64_t mean_ctx = n_rounds > 0 ? static_cast<int64_t>(ctx_sum / n_rounds) : 0;
  const int64_t mean_app = n_rounds > 0 ? std::max<int64_t>(1, static_cast<int64_t>(app_sum / n_rounds)) : 1;
  view_.beta_tokens = static_cast<int64_t>(sc_.policy.beta_seconds *
                                           cost_.prefill_prompt_tokens_per_second(mean_ctx, mean_app));
  if (mutant("beta_in_seconds")) view_.beta_tokens = static_cast<int64_t>(sc_.policy.beta_seconds * 1e6);

  sources_ = make_kv_sources({sc_, features_, be_, blocks_, layout_, totals_});
  context_.assign(agents_.size(), 0);
  // Engines that step together: an EP group synchronises at every layer's all-to-all; without EP (data-parallel
  // dense models) every engine runs on its own and the group is only the scheduler's unit.
  layout_.unit_of.assign(view_.engines.size(), -1);
  auto make_units = [&](const std::vector<std::vector<int>>& groups) {
    std::vector<std::vector<int>> units;
    for (const auto& g : groups) {
      if (cost_.sharded_weights()) units.push_back(g);
      else for (int e : g) units.push_back({e});
    }
    for (size_t u = 0; u < units.size(); ++u)
      for (int e : units[u]) layout_.unit_of[e] = static_cast<int>(u);
    return units;
  };
  layout_.pe_units = make_units(view_.pe_groups);
  layout_.de_units = make_units(view_.de_groups);
  faults_.reset(view_.engines.size());
  StageSignals& signals = *this;
  RequestStage& round_end = *this;
  stages_ = std::make_unique<ClusterStages>(ClusterParts{  // last: the stages size their state from the layout
      sc_, be_, obs_, cost_, decode_cost_, *policy_, features_, view_, layout_, blocks_, requests_, totals_, accounts_, ep_, ports_,
      *sources_, faults_, tuning_.reads_in_flight_per_node, tuning_.persist_flush_bytes, signals, round_end,
      [this](int agent, int round) { issue_round(agent, round); }, [this] { hand_over_settled(); },
      [this] { return handed_; }});
}

Cluster::~Cluster() = default;

const DeResidency* Cluster::residency() const { return stages_->decode.residency(); }

void Cluster::start() {
  arm_faults(stages_->faults);  // first: a fault at t = 0 hits before any round is placed
  for (const auto& a : agents_) {
    if (a.rounds.empty()) continue;
    const int id = a.id;
    const auto start = [this, id] {
      ++agents_started_;  // agents in flight, for the stop rule's backlog test
      issue_round(id, 0);
    };
    if (a.start <= 0) start();
    else be_.timer(a.start, start);
  }
}

void Cluster::issue_round(int agent, int round) {
  const Agent& a = agents_[agent];
  const Round& rd = a.rounds[round];
  const int64_t context = context_[agent];

  Request r;
  r.id = static_cast<int64_t>(requests_.size());
  r.agent = agent, r.round = round;
  r.prompt = context + rd.append;
  r.gen = std::max<int64_t>(1, rd.gen);
  stages_->io->round_issued(agent, context);
  // The hit is the persisted block-aligned prefix; at least one token is always prefilled (the first token
  // needs a forward).
  r.hit = mutant("hit_ignores_persisted") ? blocks_.aligned(r.prompt - 1)
                                           : std::min(blocks_.persisted_prefix(agent), blocks_.aligned(r.prompt - 1));
  r.fresh = r.prompt - r.hit;
  r.hit_bytes = layout_.kv_bytes(r.hit);
  r.prompt_bytes = layout_.kv_bytes(r.prompt);
  r.t.arrival = be_.now();
  r.wait_cause = WaitCause::Fetch, r.wait_since = r.t.arrival;

  const double hbm_need = layout_.kv_bytes(r.prompt + r.gen);
  double max_hbm = 0;
  for (const auto& g : view_.de_groups)
    for (int e : g) max_hbm = std::max(max_hbm, view_.engines[e].hbm.capacity());
  // A prompt passes through a buffer of each role (the PE's on the PE path, the DE's before decode).
  const double buffer = std::min(sc_.pe_topology().dram_buffer_bytes, sc_.de_topology().dram_buffer_bytes);
  if (hbm_need > max_hbm || r.prompt_bytes > buffer) {
    std::ostringstream m;
    m << "agent " << agent << " round " << round << " needs " << r.prompt_bytes / 1e9 << " GB of DRAM buffer and "
      << hbm_need / 1e9 << " GB of decode HBM, but a node buffer holds " << buffer / 1e9
      << " GB and a decode engine " << max_hbm / 1e9 << " GB: it can never be scheduled";
    throw NoProgressError(m.str());
  }
  requests_.push_back(r);
  stages_->placement.accept(requests_[r.id]);
}

void Cluster::round_done(Request& r) {
  r.t.done = be_.now();
  accounts_.set_wait(r, WaitCause::Count);  // charges its last cause; nothing is charged after this
  ++rounds_done_;
  const Agent& a = agents_[r.agent];
  context_[r.agent] += a.rounds[r.round].append + a.rounds[r.round].gen;
  const int next = r.round + 1;
  if (next == static_cast<int>(a.rounds.size())) ++agents_finished_;
  if (next < static_cast<int>(a.rounds.size())) {
    const double think = a.rounds[r.round].think;  // make_agents folds workload.think_time in
    const int agent = r.agent;
    if (think > 0) be_.timer(think, [this, agent, next] { issue_round(agent, next); });
    else issue_round(agent, next);
  }
  hand_over_settled();
}

void Cluster::first_token(const Request& r) {
  if (!stop_rule_ || stop_reason_ != StopReason::None) return;
  stop_reason_ = stop_rule_->observe(be_.now(), r.t.first_token - r.t.arrival, static_cast<double>(r.prompt),
                                     static_cast<double>(agents_started_ - agents_finished_));
  if (stop_reason_ != StopReason::None) stop_time_ = be_.now(), be_.stop();
}

bool Cluster::settled(const Request& r) const {
  // A round whose first token was its last is handed off after it is done (its handoff_end is still to come).
  return r.lost || (r.t.done >= 0 && !r.decode.in_batch() && (r.gen > 1 || r.t.handoff_end >= 0));
}

void Cluster::hand_over_settled() {
  if (sink_ == nullptr) return;
  const size_t n = requests_.size();
  while (handed_ < n && settled(requests_[handed_])) sink_->settled(requests_[handed_++]);
  if (!free_settled_) return;
  // A chunk is freed once the chunk after it is handed over too: whatever settled one of its requests (the round's
  // end, its handoff) has returned long before. A chunk with a lost attempt is kept: the attempt's reads, forwards
  // or transfers in flight look it up when they end (and find it lost).
  constexpr size_t k = RequestLog::chunk_size();
  for (; (freed_chunks_ + 2) * k <= handed_; ++freed_chunks_) {
    bool lost = false;
    for (size_t i = freed_chunks_ * k; i < (freed_chunks_ + 1) * k && !lost; ++i) lost = requests_[i].lost;
    if (!lost) requests_.release_chunk(freed_chunks_);
  }
}

void Cluster::hand_over_rest() {
  if (sink_ == nullptr) return;
  while (handed_ < requests_.size()) sink_->settled(requests_[handed_++]);
}

void Cluster::pe_room_back(int node) { stages_->reads.pump(node); }
void Cluster::reads_may_start() { stages_->reads.pump_all(); }
void Cluster::de_room_back() {
  stages_->reads.pump_all();
  if (layout_.streamed_buffers) stages_->prefill.pump();  // held-back forwards may fit their DE reservations now
}
void Cluster::place_again(Request& r) { stages_->placement.place_again(r); }

const std::vector<std::string>& Cluster::read_failures() const { return stages_->reads.failures(); }

double Cluster::peak_buffer_fraction() const {
  double m = 0;
  for (const auto& n : view_.nodes) m = std::max(m, n.buffer.peak() / n.buffer.capacity());
  return m;
}

ResourceUse Cluster::resource_use(double end) const {
  ResourceUse u;
  if (end <= 0) return u;
  int pe_nodes = 0, de_nodes = 0, de_engines = 0;
  for (const auto& n : view_.nodes) {
    const double cap = n.buffer.capacity() > 0 ? n.buffer.capacity() : 1.0;
    if (n.prefill) {
      ++pe_nodes, u.pe_buffer_mean += n.buffer.mean_used(end) / cap;
      u.pe_buffer_peak = std::max(u.pe_buffer_peak, n.buffer.peak() / cap);
    } else {
      ++de_nodes, u.de_buffer_mean += n.buffer.mean_used(end) / cap;
      u.de_buffer_peak = std::max(u.de_buffer_peak, n.buffer.peak() / cap);
    }
  }
  for (const auto& e : view_.engines)
    if (!e.prefill && e.hbm.capacity() > 0) ++de_engines, u.de_hbm_mean += e.hbm.mean_used(end) / e.hbm.capacity();
  if (pe_nodes) u.pe_buffer_mean /= pe_nodes;
  if (de_nodes) u.de_buffer_mean /= de_nodes;
  if (de_engines) u.de_hbm_mean /= de_engines;
  const double pe_busy = stages_->prefill.busy_seconds(), pe_stage = stages_->prefill.stage_seconds();
  u.pe_compute_busy = layout_.pe_units.empty() ? 0 : pe_busy / (static_cast<double>(layout_.pe_units.size()) * end);
  u.pe_compute_share = pe_busy > 0 ? std::min(1.0, pe_stage / pe_busy) : 0;
  u.pe_lockstep_efficiency = pe_stage > 0 ? stages_->prefill.balanced_seconds() / pe_stage : 0;
  u.de_compute_busy = layout_.de_units.empty()
                          ? 0
                          : stages_->decode.busy_seconds() / (static_cast<double>(layout_.de_units.size()) * end);
  const DecodeLayerParts& parts = stages_->decode.parts();
  u.decode_attention = parts.attention, u.decode_dense = parts.dense;
  u.decode_experts = parts.experts, u.decode_kernels = parts.kernels, u.decode_ep = parts.ep;
  u.decode_hidden = parts.hidden, u.decode_fitted = parts.fitted;
  sources_->report_use(end, totals_, u);
  return u;
}

std::string Cluster::stall_report() const {
  std::ostringstream m;
  m << (rounds_total_ - rounds_done_) << " of " << rounds_total_ << " rounds did not finish: "
    << stages_->placement.pe_waiting() << " waiting for a prefill engine, " << stages_->placement.de_unrouted()
    << " for a decode group";
  m << ", " << stages_->reads.queued() << " in storage read queues";
  stages_->reads.describe_heads(m);  // what each stuck queue's head waits for: the first thing to look at in a stall
  return m.str();
}

}  // namespace dualpath
