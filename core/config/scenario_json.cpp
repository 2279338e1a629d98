// scenario_to_json: the effective configuration echoed by `dualpath check` and into results.
#include "core/config/loader.hpp"

namespace dualpath {
namespace {

using nlohmann::json;

json optional_bool(const std::optional<bool>& b) { return b ? json(*b) : json(nullptr); }

json topology_json(const Topology& t) {
  json topology = {{"name", t.name},
                   {"gpus_per_node", t.gpus_per_node},
                   {"gpu",
                    {{"flops", t.gpu.flops},
                     {"hbm_bytes", t.gpu.hbm_bytes},
                     {"hbm_bw", t.gpu.hbm_bw},
                     {"kernel_overhead", t.gpu.kernel_overhead}}},
                   {"cnic_bw", t.cnic_bw},
                   {"snic_bw", t.snic_bw},
                   {"pcie_bw", t.pcie_bw},
                   {"dram_bw", t.dram_bw},
                   {"dram_buffer_bytes", t.dram_buffer_bytes},
                   {"nic_latency", t.nic_latency},
                   {"ep_rdma_efficiency", t.ep_rdma_efficiency},
                   {"ep_op_latency", t.ep_op_latency},
                   {"ep_normal_sync", t.ep_normal_sync},
                   {"storage",
                    {{"servers", t.storage.servers},
                     {"server_nic_bw", t.storage.server_nic_bw},
                     {"ssd_read_bw", t.storage.ssd_read_bw},
                     {"ssd_write_bw", t.storage.ssd_write_bw},
                     {"latency", t.storage.latency},
                     {"client_read_efficiency", t.storage.client_read_efficiency}}}};

  if (t.storage.gdr) topology["storage"]["gdr"] = true;  // (a baseline's key, echoed when set: docs/baselines.md)
  // A calibration's fitted fixed costs, echoed when a calibration sets them (the sourced model has none).
  if (t.fixed_costs.any())
    topology["fixed_costs"] = {{"prefill_layer", t.fixed_costs.prefill_layer},
                               {"decode_layer", t.fixed_costs.decode_layer},
                               {"decode_request", t.fixed_costs.decode_request}};
  return topology;
}

}  // namespace

nlohmann::json calibration_json(const Scenario& s) {
  json c = {{"name", s.calibration.name}, {"label", s.calibration.label}};
  if (!s.calibration.file.empty()) c["file"] = s.calibration.file;
  return c;
}

nlohmann::json scenario_to_json(const Scenario& s) {
  const ModelSpec& m = s.model;
  const Topology& t = s.topology;  // gpus_per_node: one for both roles
  const Deployment& d = s.deployment;
  const WorkloadSpec& w = s.workload;
  const PolicySpec& p = s.policy;

  json model = {{"name", m.name},
                {"timing", name_of(m.timing)},
                {"n_layers", m.n_layers},
                {"kv_bytes_per_token_layer", m.kv_bytes_per_token_layer},
                {"indexer_bytes_per_token_layer", m.indexer_bytes_per_token_layer},
                {"count_indexer_cache", m.count_indexer_cache},
                {"active_params", m.active_params},
                {"weight_bytes", m.weight_bytes},
                {"attn_flops_per_query_key", m.attn_flops_per_query_key},
                {"sparse_topk", m.sparse_topk},
                {"indexer_flops_per_query_key", m.indexer_flops_per_query_key},
                {"ep_bytes_per_token_layer", m.ep_bytes_per_token_layer},
                {"moe_topk", m.moe_topk},
                {"routed_experts", m.routed_experts},
                {"expert_weight_bytes", m.expert_weight_bytes},
                {"decode_comm_overlap", m.decode_comm_overlap},
                {"decode_micro_batches", m.decode_micro_batches},
                {"kernels_per_layer", m.kernels_per_layer},
                {"mtp_depth", m.mtp_depth},
                {"mtp_accept", m.mtp_accept},
                {"prefill_attention_efficiency", m.prefill_attention_efficiency},
                {"linear_efficiency", m.linear_efficiency},
                {"attention_efficiency", m.attention_efficiency},
                {"hbm_efficiency", m.hbm_efficiency},
                {"hidden_size", m.hidden_size},
                {"attn_heads", m.attn_heads},
                {"kv_heads", m.kv_heads},
                {"head_dim", m.head_dim},
                {"v_head_dim", m.v_head_dim}};
  if (m.timing == StepTiming::Profile) model["profile"] = m.profile_file;


  json deployment = {{"prefill_nodes", d.prefill_nodes},
                     {"decode_nodes", d.decode_nodes},
                     {"pe_group_gpus", d.pe_group_gpus},
                     {"de_group_gpus", d.de_group_gpus},
                     {"fetch_period", d.fetch_period}};

  json workload = {{"source", name_of(w.source)},
                   {"mode", name_of(w.mode)},
                   {"agents", w.agents},
                   {"aps", w.aps},
                   {"duration", w.duration},
                   {"append_scale", w.append_scale},
                   {"gen_scale", w.gen_scale},
                   {"max_len", w.max_len},
                   {"think_time", w.think_time},
                   {"time_scale", w.time_scale},
                   {"seed", w.seed},
                   {"stop", name_of(w.stop)}};
  if (w.source == WorkloadSource::File) {
    workload["file"] = w.file;
  } else {
    workload["profile"] = name_of(w.profile);
    workload["table2_reading"] = name_of(w.table2_reading);
    workload["trajectories"] = w.trajectories;
  }

  json policy = {{"name", p.name},
                 {"layerwise", optional_bool(p.layerwise)},
                 {"dual_path", optional_bool(p.dual_path)},
                 {"scheduler", optional_bool(p.scheduler)},
                 {"compute_quota", p.compute_quota},
                 {"quota_scope", name_of(p.quota_scope)},
                 {"buffer", name_of(p.buffer)},
                 {"de_hbm", name_of(p.de_hbm)},
                 {"alpha_seconds", p.alpha_seconds},
                 {"beta_seconds", p.beta_seconds},
                 {"z_factor", p.z_factor},
                 {"block_tokens", p.block_tokens},
                 {"qos", {{"enabled", p.qos.enabled}, {"model_weight", p.qos.model_weight}, {"kv_weight", p.qos.kv_weight}}},
                 {"pool", {{"bytes_per_node", p.pool.bytes_per_node}, {"eviction", name_of(p.pool.eviction)}}}};
  // Keys of the baselines (docs/baselines.md) are echoed when set: a run that leaves them at their default reads
  // as it did before they existed.
  if (p.layerwise_min_tokens > 0) policy["layerwise_min_tokens"] = p.layerwise_min_tokens;
  if (p.de_retention != PolicySpec{}.de_retention) policy["de_retention"] = p.de_retention;

  const int g = t.gpus_per_node;
  json derived = {{"kv_bytes_per_token", m.kv_bytes_per_token()},
                  {"prefill_gpus", d.prefill_nodes * g},
                  {"decode_gpus", d.decode_nodes * g},
                  {"pe_groups", d.pe_group_gpus > 0 ? d.prefill_nodes * g / d.pe_group_gpus : 0},
                  {"de_groups", d.de_group_gpus > 0 ? d.decode_nodes * g / d.de_group_gpus : 0}};

  json out = {{"name", s.name},
          {"description", s.description},
          {"source_file", s.source_file},
          {"units", "SI: bytes, bytes/s, seconds, FLOP/s"},
          {"model", model},
          {"topology", topology_json(t)},
          {"deployment", deployment},
          {"workload", workload},
          {"policy", policy},
          {"slo", {{"ttft", s.slo.ttft}, {"tpot", s.slo.tpot}}},
          {"outputs", {{"dir", s.outputs.dir}, {"link_sample_interval", s.outputs.link_sample_interval}}},
          {"sim",
           {{"fidelity", name_of(s.sim.fidelity)},
            {"layer_group", s.sim.layer_group},
            {"decode_chunk_steps", s.sim.decode_chunk_steps},
            {"decode_chunk_end", name_of(s.sim.decode_chunk_end)},
            {"kv_port", name_of(s.sim.kv_port)},
            {"time_limit", s.sim.time_limit},
            {"lmm_update", name_of(s.sim.lmm_update)},
            {"engine", name_of(s.sim.engine)},
            {"departures", name_of(s.sim.departures)},
            {"arrivals", name_of(s.sim.arrivals)}}},
          {"derived", derived}};
  // Only with mixed hardware, so that a one-kind cluster's config.json is what it was before roles had their own:
  // each role's topology in full, and which one each role's nodes run on.
  if (s.mixed_hardware()) {
    if (s.prefill_topology) out["prefill_topology"] = topology_json(*s.prefill_topology);
    if (s.decode_topology) out["decode_topology"] = topology_json(*s.decode_topology);
    out["derived"]["hardware"] = {{"prefill", s.pe_topology().name}, {"decode", s.de_topology().name}};
  }
  // Only when there are faults, so that a fault-free run's config.json is what it was before faults existed.
  if (!s.faults.empty()) {
    json faults = json::array();
    for (const FaultSpec& f : s.faults) {
      json e = {{"kind", name_of(f.kind)}, {"at", f.at}};
      if (f.node >= 0) e["node"] = f.node;
      if (f.gpu >= 0) e["gpu"] = f.gpu;
      if (has_factor(f.kind)) e["factor"] = f.factor;
      if (f.until >= 0) e["until"] = f.until;
      faults.push_back(e);
    }
    out["faults"] = faults;
  }
  return out;
}

}  // namespace dualpath
