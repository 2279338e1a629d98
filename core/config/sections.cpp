#include "core/config/input_file.hpp"
#include "core/config/sections.hpp"

#include <cmath>
#include <filesystem>
#include <limits>

#include "core/config/step_profile_file.hpp"

namespace dualpath {
namespace {

using units::Dimension;
constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

std::string non_empty_string(const ObjectReader& r, const std::string& key) {
  std::string s = r.string(key);
  if (s.empty()) r.fail(key, "expected a non-empty string");
  return s;
}

// An engine group is a set of GPUs that run one EP/DP instance. A node's engines all belong to groups of the
// same role, so a group either fits a whole number of times into a node or spans a whole number of nodes, and
// the role's GPUs must split into whole groups.
int parse_group(const ObjectReader& r, const std::string& key, int nodes, int gpus_per_node, const char* role) {
  const int n = static_cast<int>(r.integer(key, 1, kMaxInt));
  const bool fits = n <= gpus_per_node ? gpus_per_node % n == 0 : n % gpus_per_node == 0;
  if (!fits) {
    r.fail(key, "expected a group size that divides gpus_per_node (" + std::to_string(gpus_per_node) +
                    " in the topology) or is a multiple of it, found " + std::to_string(n));
  }
  const int64_t gpus = static_cast<int64_t>(nodes) * gpus_per_node;
  if (gpus % n != 0) {
    r.fail(key, std::string("expected the ") + role + " GPUs (" + std::to_string(nodes) + " nodes x " +
                    std::to_string(gpus_per_node) + " = " + std::to_string(gpus) +
                    ") to split into whole groups, found a group size of " + std::to_string(n));
  }
  return n;
}

}  // namespace

ModelSpec parse_model(const ObjectReader& parent, const std::string& key) {
  const ObjectReader r = parent.object(
      key, {"name", "description", "sources", "timing", "profile", "n_layers", "kv_bytes_per_token_layer", "indexer_bytes_per_token_layer",
            "count_indexer_cache", "active_params", "weight_bytes", "attn_flops_per_query_key", "sparse_topk",
            "indexer_flops_per_query_key", "ep_bytes_per_token_layer", "moe_topk", "routed_experts", "expert_weight_bytes",
            "decode_comm_overlap", "decode_micro_batches", "kernels_per_layer", "mtp_depth", "mtp_accept",
            "linear_efficiency", "attention_efficiency", "prefill_attention_efficiency",
            "hbm_efficiency", "hidden_size", "attn_heads", "kv_heads", "head_dim", "v_head_dim"});
  const ModelSpec d;
  ModelSpec m;
  m.name = non_empty_string(r, "name");
  m.timing = choice_value(kStepTimings, r.choice("timing", choice_names(kStepTimings), name_of(d.timing)));
  if (m.timing == StepTiming::Profile || r.has("profile")) {
    const std::string file = non_empty_string(r, "profile");
    const std::filesystem::path resolved =
        (std::filesystem::path(r.origins().base_dir(pointer_join(r.pointer(), "profile"))) / file).lexically_normal();
    // A profile the timing would not use is a mistake, not a default (issue 68: it was ignored silently).
    if (m.timing != StepTiming::Profile)
      r.fail("profile", std::string("a step profile is used only with timing = \"profile\" (this model's timing is \"") +
                            name_of(m.timing) + "\"); set model.timing=profile too, or drop model.profile");
    if (const std::string why = input_file_problem(resolved.string(), "step profile"); !why.empty())
      r.fail("profile", why);
    m.profile_file = resolved.string();
    m.profile = std::make_shared<const StepProfile>(read_step_profile(m.profile_file));
  }
  r.string_or("description", "");
  r.string_map("sources");
  m.n_layers = static_cast<int>(r.integer("n_layers", 1, 10000));
  m.kv_bytes_per_token_layer = r.quantity("kv_bytes_per_token_layer", Dimension::Bytes, Range::positive());
  m.indexer_bytes_per_token_layer =
      r.quantity("indexer_bytes_per_token_layer", Dimension::Bytes, Range::non_negative(), 0.0);
  m.count_indexer_cache = r.boolean("count_indexer_cache", d.count_indexer_cache);
  if (m.count_indexer_cache && m.indexer_bytes_per_token_layer == 0) {
    r.fail("count_indexer_cache", "is true but the model has no indexer cache (indexer_bytes_per_token_layer is 0)");
  }
  m.active_params = r.number("active_params", Range::positive());
  m.weight_bytes = r.quantity("weight_bytes", Dimension::Bytes, Range::positive());
  m.attn_flops_per_query_key = r.number("attn_flops_per_query_key", Range::positive());
  m.sparse_topk = static_cast<int>(r.integer("sparse_topk", 0, kMaxInt, d.sparse_topk));
  m.indexer_flops_per_query_key = r.number("indexer_flops_per_query_key", Range::non_negative(), 0.0);
  if (m.indexer_flops_per_query_key > 0 && m.sparse_topk == 0) {
    r.fail("indexer_flops_per_query_key", "is set but sparse_topk is 0; the indexer only exists with sparse attention");
  }
  m.ep_bytes_per_token_layer = r.quantity("ep_bytes_per_token_layer", Dimension::Bytes, Range::non_negative(), 0.0);
  m.moe_topk = static_cast<int>(r.integer("moe_topk", 0, 4096, d.moe_topk));
  m.routed_experts = static_cast<int>(r.integer("routed_experts", 0, 1000000, d.routed_experts));
  m.expert_weight_bytes = r.quantity("expert_weight_bytes", Dimension::Bytes, Range::non_negative(), 0.0);
  if ((m.routed_experts > 0) != (m.expert_weight_bytes > 0)) {
    r.fail(m.routed_experts > 0 ? "expert_weight_bytes" : "routed_experts",
           "expected routed_experts and expert_weight_bytes to be given together (both > 0) or not at all");
  }
  if (m.routed_experts > 0) {
    if (m.moe_topk <= 0 || m.moe_topk > m.routed_experts)
      r.fail("moe_topk", "expected 1.." + std::to_string(m.routed_experts) + " (routed_experts is set), found " +
                             std::to_string(m.moe_topk));
    if (m.ep_bytes_per_token_layer <= 0)
      r.fail("ep_bytes_per_token_layer", "expected > 0: a model with routed experts runs expert parallel");
    if (m.expert_weight_bytes >= m.weight_bytes)
      r.fail("expert_weight_bytes", "expected less than weight_bytes (the attention and shared weights are the rest)");
    // Every token's activated experts must fit in its active parameters (1 byte per FP8 parameter).
    if (m.expert_weight_bytes / m.routed_experts * m.moe_topk > m.active_params)
      r.fail("expert_weight_bytes", "moe_topk x expert_weight_bytes / routed_experts exceeds active_params "
                                    "(parameters are counted at 1 byte each)");
  }
  m.decode_comm_overlap = r.number("decode_comm_overlap", Range::unit_interval(), d.decode_comm_overlap);
  m.decode_micro_batches = static_cast<int>(r.integer("decode_micro_batches", 1, 2, d.decode_micro_batches));
  if (m.decode_micro_batches > 1 && m.decode_comm_overlap > 0)
    r.fail("decode_comm_overlap", "expected 0 with decode_micro_batches = 2: the micro-batches are the overlap");
  m.kernels_per_layer = static_cast<int>(r.integer("kernels_per_layer", 0, 10000, d.kernels_per_layer));
  m.mtp_depth = static_cast<int>(r.integer("mtp_depth", 0, 8, d.mtp_depth));
  if (m.mtp_depth > 0) {
    m.mtp_accept = r.number("mtp_accept", Range::unit_interval());  // no default: the rate is the assumption
  } else if (r.has("mtp_accept")) {
    r.fail("mtp_accept", "is set but mtp_depth is 0; set mtp_depth (draft tokens per step) to use it");
  }
  m.linear_efficiency = r.number("linear_efficiency", Range::fraction(), d.linear_efficiency);
  m.attention_efficiency = r.number("attention_efficiency", Range::fraction(), d.attention_efficiency);
  if (r.has("prefill_attention_efficiency"))  // absent (0): prefill attention runs at attention_efficiency
    m.prefill_attention_efficiency = r.number("prefill_attention_efficiency", Range::fraction());
  m.hbm_efficiency = r.number("hbm_efficiency", Range::fraction(), d.hbm_efficiency);
  m.hidden_size = static_cast<int>(r.integer("hidden_size", 0, 1000000, 0));
  m.attn_heads = static_cast<int>(r.integer("attn_heads", 0, 100000, 0));
  m.kv_heads = static_cast<int>(r.integer("kv_heads", 0, 100000, 0));
  m.head_dim = static_cast<int>(r.integer("head_dim", 0, 100000, 0));
  m.v_head_dim = static_cast<int>(r.integer("v_head_dim", 0, 100000, 0));
  if (m.kv_heads > 0 && m.attn_heads > 0 && m.attn_heads % m.kv_heads != 0) {
    r.fail("kv_heads", "expected a divisor of attn_heads (" + std::to_string(m.attn_heads) + "), found " +
                           std::to_string(m.kv_heads));
  }
  // The kernels hw/ runs must cost what the cost model charges, so the dimensions must agree with the FLOPs.
  if (m.attn_heads > 0 && m.head_dim > 0 && m.v_head_dim > 0) {
    const double implied = 2.0 * m.attn_heads * (m.head_dim + m.v_head_dim);
    if (std::abs(implied - m.attn_flops_per_query_key) > 0.01 * m.attn_flops_per_query_key) {
      r.fail("attn_heads", "2 x attn_heads x (head_dim + v_head_dim) = " + std::to_string(static_cast<int64_t>(implied)) +
                               " FLOP per (query, key), expected attn_flops_per_query_key (" +
                               std::to_string(static_cast<int64_t>(m.attn_flops_per_query_key)) + ") within 1%");
    }
  }
  return m;
}

Topology parse_topology(const ObjectReader& parent, const std::string& key) {
  const ObjectReader r =
      parent.object(key, {"name", "description", "sources", "gpus_per_node", "gpu", "cnic_bw", "snic_bw", "pcie_bw",
                          "dram_bw", "dram_buffer_bytes", "nic_latency", "ep_rdma_efficiency", "ep_op_latency",
                          "ep_normal_sync", "fixed_costs", "storage"});
  Topology t;
  t.name = non_empty_string(r, "name");
  r.string_or("description", "");
  r.string_map("sources");
  t.gpus_per_node = static_cast<int>(r.integer("gpus_per_node", 1, 1024));

  const ObjectReader gpu = r.object("gpu", {"flops", "hbm_bytes", "hbm_bw", "kernel_overhead"});
  t.gpu.flops = gpu.quantity("flops", Dimension::FlopRate, Range::positive());
  t.gpu.hbm_bytes = gpu.quantity("hbm_bytes", Dimension::Bytes, Range::positive());
  t.gpu.hbm_bw = gpu.quantity("hbm_bw", Dimension::Bandwidth, Range::positive());
  t.gpu.kernel_overhead = gpu.quantity("kernel_overhead", Dimension::Duration, Range{0.0, 1e-3, false}, 0.0);

  t.cnic_bw = r.quantity("cnic_bw", Dimension::Bandwidth, Range::positive());
  t.snic_bw = r.quantity("snic_bw", Dimension::Bandwidth, Range::positive());
  t.pcie_bw = r.quantity("pcie_bw", Dimension::Bandwidth, Range::positive());
  t.dram_bw = r.quantity("dram_bw", Dimension::Bandwidth, Range::positive());
  t.dram_buffer_bytes = r.quantity("dram_buffer_bytes", Dimension::Bytes, Range::positive());
  t.nic_latency = r.quantity("nic_latency", Dimension::Duration, Range::non_negative(), 0.0);
  t.ep_rdma_efficiency = r.number("ep_rdma_efficiency", Range::fraction(), 1.0);
  // Without its own figure a dispatch or combine costs one NIC hop (the model before the DeepEP floor).
  t.ep_op_latency = r.quantity("ep_op_latency", Dimension::Duration, Range{0.0, 1e-2, false}, t.nic_latency);
  t.ep_normal_sync = r.quantity("ep_normal_sync", Dimension::Duration, Range{0.0, 1.0, false}, 0.0);
  // A calibration's fitted fixed costs (docs/calibration.md): absent in every bundled topology, 0 each.
  if (r.has("fixed_costs")) {
    const ObjectReader f = r.object("fixed_costs", {"prefill_layer", "decode_layer", "decode_request"});
    // At most 1 s per layer: a larger fixed cost is a unit mistake (a whole forward would take minutes).
    const Range per_layer{0.0, 1.0, false};
    t.fixed_costs.prefill_layer = f.quantity("prefill_layer", Dimension::Duration, per_layer, 0.0);
    t.fixed_costs.decode_layer = f.quantity("decode_layer", Dimension::Duration, per_layer, 0.0);
    t.fixed_costs.decode_request = f.quantity("decode_request", Dimension::Duration, Range{0.0, 1e-2, false}, 0.0);
  }

  const ObjectReader s = r.object("storage", {"servers", "server_nic_bw", "ssd_read_bw", "ssd_write_bw", "latency",
                                              "client_read_efficiency", "gdr"});
  t.storage.servers = static_cast<int>(s.integer("servers", 0, 1000000, 0));
  t.storage.server_nic_bw = s.quantity("server_nic_bw", Dimension::Bandwidth, Range::positive());
  t.storage.ssd_read_bw = s.quantity("ssd_read_bw", Dimension::Bandwidth, Range::positive());
  t.storage.ssd_write_bw = s.quantity("ssd_write_bw", Dimension::Bandwidth, Range::positive());
  t.storage.latency = s.quantity("latency", Dimension::Duration, Range::non_negative(), 0.0);
  t.storage.client_read_efficiency = s.number("client_read_efficiency", Range::fraction(), 1.0);
  t.storage.gdr = s.boolean("gdr", false);
  return t;
}

Deployment parse_deployment(const ObjectReader& parent, const std::string& key, const Topology& topology) {
  const ObjectReader r =
      parent.object(key, {"prefill_nodes", "decode_nodes", "pe_group_gpus", "de_group_gpus", "fetch_period"});
  Deployment dep;
  dep.prefill_nodes = static_cast<int>(r.integer("prefill_nodes", 1, 1000000));
  dep.decode_nodes = static_cast<int>(r.integer("decode_nodes", 1, 1000000));
  dep.pe_group_gpus = parse_group(r, "pe_group_gpus", dep.prefill_nodes, topology.gpus_per_node, "prefill");
  dep.de_group_gpus = parse_group(r, "de_group_gpus", dep.decode_nodes, topology.gpus_per_node, "decode");
  // Required: the paper does not give the fetch period, so every scenario states its choice (see assumptions.md).
  // At least 1 us: a leader cannot usefully pull faster, and a shorter period only multiplies events (a period
  // of 1e-300 s would never let the clock move).
  dep.fetch_period = r.quantity("fetch_period", Dimension::Duration, Range{1e-6, std::numeric_limits<double>::infinity()});
  return dep;
}

WorkloadSpec parse_workload(const ObjectReader& parent, const std::string& key) {
  const ObjectReader r =
      parent.object(key, {"source", "profile", "table2_reading", "trajectories", "file", "mode", "agents", "aps", "duration",
                          "time_scale", "append_scale", "gen_scale", "max_len", "think_time", "seed", "stop"});
  const WorkloadSpec d;
  WorkloadSpec w;
  w.source = choice_value(kWorkloadSources, r.choice("source", choice_names(kWorkloadSources), name_of(d.source)));
  // Keys of the branch not taken are still type-checked but otherwise ignored, so an override such as
  // workload.mode=online works on an offline scenario without having to delete its "agents" key.
  w.profile = choice_value(kProfiles, r.choice("profile", choice_names(kProfiles), name_of(d.profile)));
  w.table2_reading =
      choice_value(kTable2Readings, r.choice("table2_reading", choice_names(kTable2Readings), name_of(d.table2_reading)));
  w.trajectories = static_cast<int>(r.integer("trajectories", 1, 10000000, d.trajectories));
  if (w.source == WorkloadSource::File || r.has("file")) {
    const std::string file = non_empty_string(r, "file");
    const std::filesystem::path resolved =
        (std::filesystem::path(r.origins().base_dir(pointer_join(r.pointer(), "file"))) / file).lexically_normal();
    if (w.source == WorkloadSource::File) {
      if (const std::string why = input_file_problem(resolved.string(), "trace"); !why.empty()) r.fail("file", why);
    }
    w.file = resolved.string();
  }

  w.mode = choice_value(kArrivalModes, r.choice("mode", choice_names(kArrivalModes)));
  const bool online = w.mode == ArrivalMode::Online;
  // agents = 0: one agent per trajectory; aps = 0: the trace's own arrival times, where duration = 0 means the
  // whole trace (Poisson arrivals need a positive duration).
  if (!online || r.has("agents")) w.agents = static_cast<int>(r.integer("agents", 0, 100000000));
  if (online || r.has("aps")) w.aps = r.number("aps", Range::non_negative());
  if (online || r.has("duration"))
    w.duration = r.quantity("duration", Dimension::Duration, w.aps == 0 ? Range::non_negative() : Range::positive());
  w.time_scale = r.number("time_scale", Range::positive(), d.time_scale);

  w.append_scale = r.number("append_scale", Range::positive(), d.append_scale);
  w.gen_scale = r.number("gen_scale", Range::positive(), d.gen_scale);
  w.max_len = r.integer("max_len", 0, kMaxInt64, d.max_len);
  w.think_time = r.quantity("think_time", Dimension::Duration, Range::non_negative(), d.think_time);
  w.seed = static_cast<uint64_t>(r.integer("seed", 0, kMaxInt64, static_cast<int64_t>(d.seed)));
  w.stop = choice_value(kStopModes, r.choice("stop", choice_names(kStopModes), name_of(d.stop)));
  if (w.stop != StopMode::None && !online)
    r.fail("stop", "the stop rule applies to online runs only; expected \"none\" with mode \"offline\"");
  return w;
}

PolicySpec parse_policy(const ObjectReader& parent, const std::string& key) {
  const ObjectReader r = parent.object(key, {"name", "layerwise", "dual_path", "scheduler", "compute_quota",
                                             "quota_scope", "buffer", "de_hbm", "alpha_seconds", "beta_seconds", "z_factor",
                                             "block_tokens", "layerwise_min_tokens", "de_retention", "qos", "pool"});
  const PolicySpec d;
  PolicySpec p;
  p.name = r.string_or("name", d.name);
  // The scheduler's registry is not known here; only the shape of a registry key is checked.
  if (p.name.empty() || p.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos) {
    r.fail("name", "expected a policy name of lower-case letters, digits, '_' or '-' (e.g. \"dualpath\", \"basic\", "
                   "\"oracle\"), found \"" + p.name + "\"");
  }
  p.layerwise = r.optional_boolean("layerwise");
  p.dual_path = r.optional_boolean("dual_path");
  p.scheduler = r.optional_boolean("scheduler");
  p.compute_quota = r.quantity("compute_quota", Dimension::Duration, Range::positive(), d.compute_quota);
  p.quota_scope = choice_value(kQuotaScopes, r.choice("quota_scope", choice_names(kQuotaScopes), name_of(d.quota_scope)));
  p.buffer = choice_value(kBufferLifecycles, r.choice("buffer", choice_names(kBufferLifecycles), name_of(d.buffer)));
  p.de_hbm = choice_value(kDeHbmAts, r.choice("de_hbm", choice_names(kDeHbmAts), name_of(d.de_hbm)));
  p.alpha_seconds = r.quantity("alpha_seconds", Dimension::Duration, Range::positive(), d.alpha_seconds);
  p.beta_seconds = r.quantity("beta_seconds", Dimension::Duration, Range::positive(), d.beta_seconds);
  p.z_factor = r.number("z_factor", Range::positive(), d.z_factor);
  p.block_tokens = static_cast<int>(r.integer("block_tokens", 1, 1 << 20, d.block_tokens));
  p.de_retention = r.quantity("de_retention", Dimension::Duration, Range::positive(), d.de_retention);
  p.layerwise_min_tokens = r.integer("layerwise_min_tokens", 0, int64_t{1} << 40, d.layerwise_min_tokens);

  const ObjectReader q = r.object("qos", {"enabled", "model_weight", "kv_weight"}, /*required=*/false);
  p.qos.enabled = q.boolean("enabled", d.qos.enabled);
  p.qos.model_weight = q.number("model_weight", Range::positive(), d.qos.model_weight);
  p.qos.kv_weight = q.number("kv_weight", Range::positive(), d.qos.kv_weight);

  const ObjectReader pool = r.object("pool", {"bytes_per_node", "eviction"}, /*required=*/false);
  p.pool.bytes_per_node =
      pool.quantity("bytes_per_node", Dimension::Bytes, Range::non_negative(), d.pool.bytes_per_node);
  p.pool.eviction =
      choice_value(kPoolEvictions, pool.choice("eviction", choice_names(kPoolEvictions), name_of(d.pool.eviction)));
  return p;
}

SloSpec parse_slo(const ObjectReader& parent, const std::string& key) {
  const ObjectReader r = parent.object(key, {"ttft", "tpot"}, /*required=*/false);
  const SloSpec d;
  SloSpec s;
  s.ttft = r.quantity("ttft", Dimension::Duration, Range::positive(), d.ttft);
  s.tpot = r.quantity("tpot", Dimension::Duration, Range::positive(), d.tpot);
  return s;
}

OutputSpec parse_outputs(const ObjectReader& parent, const std::string& key) {
  const ObjectReader r = parent.object(key, {"dir", "link_sample_interval"}, /*required=*/false);
  const OutputSpec d;
  OutputSpec o;
  o.dir = r.string_or("dir", d.dir);
  if (o.dir.empty()) r.fail("dir", "expected a non-empty directory path");
  o.link_sample_interval =
      r.quantity("link_sample_interval", Dimension::Duration, Range::positive(), d.link_sample_interval);
  return o;
}

SimSpec parse_sim(const ObjectReader& parent, const std::string& key, const ModelSpec& model) {
  const ObjectReader r =
      parent.object(key,
                    {"fidelity", "layer_group", "decode_chunk_steps", "decode_chunk_end", "kv_port", "time_limit",
                     "lmm_update", "engine", "departures", "arrivals"},
                    /*required=*/false);
  SimSpec d;
  d.fidelity = choice_value(kFidelities, r.choice("fidelity", choice_names(kFidelities), name_of(d.fidelity)));
  if (d.fidelity == Fidelity::Fast) {  // the approximate defaults; a key given on its own still wins
    d.decode_chunk_end = DecodeChunkEnd::Steps;
    d.decode_chunk_steps = 3;
  }
  SimSpec s;
  s.fidelity = d.fidelity;
  // More layers per group than the model has would be meaningless; 0 lets the simulator choose.
  s.layer_group = static_cast<int>(r.integer("layer_group", 0, model.n_layers, d.layer_group));
  s.decode_chunk_steps = static_cast<int>(r.integer("decode_chunk_steps", 1, 1000000, d.decode_chunk_steps));
  s.decode_chunk_end = choice_value(
      kDecodeChunkEnds, r.choice("decode_chunk_end", choice_names(kDecodeChunkEnds), name_of(d.decode_chunk_end)));
  s.kv_port = choice_value(kKvPorts, r.choice("kv_port", choice_names(kKvPorts), name_of(d.kv_port)));
  s.time_limit = r.quantity("time_limit", Dimension::Duration, Range::non_negative(), d.time_limit);
  s.lmm_update = choice_value(kLmmUpdates, r.choice("lmm_update", choice_names(kLmmUpdates), name_of(d.lmm_update)));
  s.engine = choice_value(kNetworkEngines, r.choice("engine", choice_names(kNetworkEngines), name_of(d.engine)));
  s.departures =
      choice_value(kDepartureSolves, r.choice("departures", choice_names(kDepartureSolves), name_of(d.departures)));
  s.arrivals = choice_value(kArrivalSolves, r.choice("arrivals", choice_names(kArrivalSolves), name_of(d.arrivals)));
  return s;
}

}  // namespace dualpath
