// Typed configuration of one simulation: the C++ side of models/, topologies/ and scenarios/ JSON files.
// All quantities are in SI base units after parsing: seconds, bytes, bytes per second, FLOP per second.
// Parsing and validation live in loader.cpp; defaults that the paper fixes are documented in docs/assumptions.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "core/config/choices.hpp"
#include "core/config/fault_kinds.hpp"

namespace dualpath {

// One LLM. Figures and their sources are in models/*.json ("sources" object).
struct StepProfile;  // core/config/step_profile_file.hpp

struct ModelSpec {
  std::string name;
  // Where step times come from (docs/cost-model.md, "Profiles"): the roofline below, or the measured tables of
  // `profile_file`, read and checked at load (shared: a ModelSpec is copied freely).
  StepTiming timing = StepTiming::Roofline;
  std::string profile_file;
  std::shared_ptr<const StepProfile> profile;
  int n_layers = 0;
  double kv_bytes_per_token_layer = 0;       // bytes of main KV per token per layer (MLA FP8: 656)
  double indexer_bytes_per_token_layer = 0;  // DSA lightning-indexer key cache, bytes per token per layer
  bool count_indexer_cache = false;          // whether the indexer cache is stored and loaded with the KV
  double active_params = 0;                  // parameters touched per token (MoE: active); linear FLOPs = 2x this
  double weight_bytes = 0;                   // all weights, bytes (split over an engine group by EP/DP)
  double attn_flops_per_query_key = 0;       // FLOPs for one (query, key) pair in one layer: QK^T + AV
  int sparse_topk = 0;                       // DSA top-k keys per query (0 = dense attention)
  double indexer_flops_per_query_key = 0;    // DSA indexer FLOPs per (query, key) pair per layer, full context
  double ep_bytes_per_token_layer = 0;       // EP all-to-all bytes per token per layer (dispatch + combine), 0 = none
  // Routed experts per token. When set, a prefill forward's all-to-all crosses the RDMA network once per (token,
  // remote node holding one of its experts) and fans out over NVLink there (DeepEP normal kernels); 0 = every
  // routed copy crosses on its own. Decode steps use DeepEP's low-latency kernels: one RDMA copy per expert.
  int moe_topk = 0;
  // Routed experts per MoE layer and the bytes all of them weigh. Under EP a GPU holds expert_weight_bytes / N of
  // the experts and a full copy of the rest of the weights (attention, shared experts, dense layers, embeddings:
  // DP attention replicates them), and a step reads only the experts its tokens activate. 0 = the old split:
  // all of weight_bytes divided by the group (docs/cost-model.md).
  int routed_experts = 0;
  double expert_weight_bytes = 0;
  // Share of the shorter of (decode compute, decode EP all-to-all) that micro-batch overlap hides, 0..1: a plain
  // fraction, applied only with decode_micro_batches = 1 (the two-batch mechanism below replaces it).
  double decode_comm_overlap = 0;
  // Decode micro-batches (DeepSeek's dual-batch overlap, Day-6 overview): 1 = one batch, compute then all-to-all;
  // 2 = each half computes while the other half's dispatch/combine is in flight, at the price of reading the
  // weights and launching every kernel once per half (docs/cost-model.md).
  int decode_micro_batches = 1;
  // Kernels on one layer's critical path per micro-batch (GEMMs, norms, RoPE, router, attention, EP issue): each
  // pays GpuSpec::kernel_overhead on top of its roofline time. 0 = no per-kernel cost.
  int kernels_per_layer = 0;
  // Multi-token prediction (DeepSeek-V3 report §5.4.3): draft tokens per decode step (0 = off) and the probability
  // that each is accepted. A step then carries 1 + mtp_depth tokens per request through n_layers + mtp_depth
  // layers (each MTP module is one more layer) and yields 1 + a + ... + a^depth tokens on average.
  int mtp_depth = 0;
  double mtp_accept = 0;
  // Prefill attention's share of the peak (prefill kernels differ from decode ones: FlashMLA's sparse prefill
  // reaches 640 TFLOPS where its sparse decode reaches 410); 0 = attention_efficiency.
  double prefill_attention_efficiency = 0;

  // Prefill all-to-all bytes per token per layer that cross the RDMA network in a group spanning `nodes` nodes.
  double prefill_ep_rdma_bytes_per_token_layer(int nodes) const {
    if (nodes <= 1 || ep_bytes_per_token_layer <= 0) return 0;
    const double n = nodes;
    if (moe_topk <= 0) return ep_bytes_per_token_layer * (n - 1) / n;
    // Expected number of other nodes that hold at least one of the token's experts (experts spread evenly; the
    // with-replacement form, within 0.1% of the exact draw for 256 experts), times one copy of the token each way.
    double miss = 1;
    for (int i = 0; i < moe_topk; ++i) miss *= 1 - 1 / n;
    return ep_bytes_per_token_layer / moe_topk * (n - 1) * (1 - miss);
  }
  // Decode all-to-all bytes per token per layer over RDMA: every routed copy to an expert on another node.
  double decode_ep_rdma_bytes_per_token_layer(int nodes) const {
    return nodes <= 1 ? 0 : ep_bytes_per_token_layer * (nodes - 1.0) / nodes;
  }
  // Kernel dimensions, used only where real kernels run (hw/gpu/layer_shapes.cpp); 0 = derive a default there.
  // attn_heads x 2 x (head_dim + v_head_dim) must equal attn_flops_per_query_key when all three are given.
  int hidden_size = 0;   // model width: the K of the projection and FFN GEMMs
  int attn_heads = 0;    // query heads
  int kv_heads = 0;      // heads with their own K/V (GQA groups; MLA in absorbed form: 1, one shared latent)
  int head_dim = 0;      // per-head Q.K dimension (MLA absorbed: latent + RoPE = 576)
  int v_head_dim = 0;    // per-head dimension of the values attention sums (MLA absorbed: the 512 latent)
  // Efficiency factors turning peak FLOP/s and HBM bandwidth into achieved rates (roofline until hw/ calibrates).
  double linear_efficiency = 0.5;
  double attention_efficiency = 0.4;
  double hbm_efficiency = 0.8;

  double kv_bytes_per_token() const {
    return n_layers * (kv_bytes_per_token_layer + (count_indexer_cache ? indexer_bytes_per_token_layer : 0.0));
  }
  double kv_bytes_per_token_one_layer() const { return kv_bytes_per_token() / n_layers; }
  // Tokens a decode step yields per request on average (1 without MTP).
  double tokens_per_decode_step() const {
    double e = 1, p = 1;
    for (int i = 0; i < mtp_depth; ++i) e += (p *= mtp_accept);
    return e;
  }
  // Layers a decode step runs per token it yields: (n_layers + mtp_depth) / tokens_per_decode_step().
  double decode_layers_per_token() const { return (n_layers + mtp_depth) / tokens_per_decode_step(); }
};

struct GpuSpec {
  double flops = 0;       // dense peak FLOP/s of the precision the model runs in
  double hbm_bytes = 0;   // HBM capacity per GPU
  double hbm_bw = 0;      // HBM bandwidth per GPU, bytes/s
  // Fixed time of one kernel beyond its roofline (launch in a CUDA graph, prologue, last-wave tail), seconds.
  double kernel_overhead = 0;
};

struct StorageSpec {
  int servers = 0;           // number of storage servers; 0 = one per compute node
  double server_nic_bw = 0;  // per storage server NIC, bytes/s
  double ssd_read_bw = 0;    // per storage server aggregate SSD read bandwidth
  double ssd_write_bw = 0;   // per storage server aggregate SSD write bandwidth
  double latency = 0;        // per request latency (seconds), folded into the storage NIC link
  // Share of a node's SNIC line rate its storage client delivers on reads (issue 62; docs/cost-model.md, "Storage
  // reads"): the SNIC's read link carries at most snic_bw x this. 1 = the paper's reading (3FS saturates the SNIC).
  double client_read_efficiency = 1;
  // GPUDirect Storage on the prefill nodes (3FS docs/gdr-integration.md; docs/baselines.md): a PE-path read lands
  // straight in the PE GPU's HBM through the SNIC and the GPU's PCIe link, with no DRAM staging buffer and no H2D;
  // its hit then holds HBM from its read until its forward ends. 3FS has no fallback to host memory.
  bool gdr = false;
  friend bool operator==(const StorageSpec&, const StorageSpec&) = default;
};

// One node type plus the storage cluster.
struct Topology {
  std::string name;
  int gpus_per_node = 0;
  GpuSpec gpu;
  double cnic_bw = 0;            // per GPU compute NIC, bytes/s, per direction (PCIe-side read and write)
  double snic_bw = 0;            // per node storage NIC, bytes/s, per direction
  // What a node's SNIC delivers on storage reads: snic_bw x storage.client_read_efficiency.
  double snic_read_bw() const { return snic_bw * storage.client_read_efficiency; }
  double pcie_bw = 0;            // per GPU PCIe link between host DRAM and the GPU/CNIC switch, per direction
  double dram_bw = 0;            // per node host DRAM bandwidth, half duplex (reads + writes share it)
  double dram_buffer_bytes = 0;  // per node DRAM set aside as PE/DE buffer
  double nic_latency = 0;        // one-way latency of a NIC hop (fabric latency folded in), seconds
  double ep_rdma_efficiency = 1; // achieved share of cnic_bw by the decode EP all-to-all kernels (DeepEP LL)
  double ep_op_latency = 0;      // fixed time of one decode dispatch or combine (DeepEP LL), seconds
  // Fixed time per prefill layer of DeepEP's normal-mode dispatch beyond moving bytes: its notify step's global
  // barriers and the host's wait for the receive counts (issue 62; docs/cost-model.md "Prefill at the agentic shape").
  double ep_normal_sync = 0;
  // Fixed costs a calibration fits to a measured cluster (docs/calibration.md); all 0 in the sourced model.
  struct FixedCosts {
    double prefill_layer = 0;   // seconds added to every prefill forward's layer (any group size)
    double decode_layer = 0;    // seconds added to every decode step's layer, per micro-batch
    double decode_request = 0;  // seconds per request of the most loaded engine, per decode step layer
    bool any() const { return prefill_layer > 0 || decode_layer > 0 || decode_request > 0; }
    friend bool operator==(const FixedCosts&, const FixedCosts&) = default;
  } fixed_costs;
  StorageSpec storage;
};

struct Deployment {
  int prefill_nodes = 0;   // P
  int decode_nodes = 0;    // D
  int pe_group_gpus = 0;   // engines per prefill group (EP/DP group); multiple of gpus_per_node or divisor
  int de_group_gpus = 0;   // engines per decode group
  double fetch_period = 0; // seconds between a group leader's fetches from the scheduler
};

struct WorkloadSpec {
  // Source of trajectories: a generated synthetic profile, or a native trace file.
  WorkloadSource source = WorkloadSource::Generate;
  Profile profile = Profile::K64;      // for "generate": "32k" | "48k" | "64k"
  int trajectories = 500;              // for "generate"
  Table2Reading table2_reading = Table2Reading::Trajectories;  // for "generate": which reading of Table 2 the profile is calibrated to
                                          // ("rounds" | "trajectories", docs/workload.md)
  std::string file;                    // for "file": path (resolved against the scenario file's folder)
  ArrivalMode mode = ArrivalMode::Offline;
  int agents = 0;                      // offline: number of agents started at t = 0 (0 = one per trajectory)
  double aps = 0;                      // online: Poisson agent arrivals per second (0 = the trace's own arrivals)
  double duration = 0;                 // online: stop issuing new agents after this time (seconds; 0 = never, aps = 0 only)
  double time_scale = 1.0;             // multiplies every time the trace gives (arrivals, think_seconds): < 1 = faster
  double append_scale = 1.0;           // multiply each round's append length (Fig. 9), then truncate at max_len
  double gen_scale = 1.0;              // multiply each round's generated length
  int64_t max_len = 0;                 // truncate trajectories at this total length (0 = the profile's maximum)
  double think_time = 0;               // added pause between a round's end and the next round (seconds)
  uint64_t seed = 1;
  // Online only: "none" runs until every agent has finished; "slo" applies the paper's stop rule (§7.6): the run
  // ends when TTFT exceeds the SLO or at steady state (core/metrics/stop_rule.hpp).
  StopMode stop = StopMode::None;
};

// The service-level objective online runs are judged by (paper §7.6: TTFT <= 4 s, TPOT <= 50 ms).
struct SloSpec {
  double ttft = 4.0;
  double tpot = 0.050;
};

struct QosSpec {
  bool enabled = true;
  double model_weight = 99;  // weighted max-min share of model traffic vs KV traffic on a CNIC
  double kv_weight = 1;
};

struct PolicySpec {
  std::string name = "dualpath";     // registry key: dualpath | basic | oracle | any registered policy
  // Ablation toggles; unset = the named policy's default.
  std::optional<bool> layerwise;     // layerwise prefill (one layer of the batch's KV in HBM)
  std::optional<bool> dual_path;     // allow the DE read path
  std::optional<bool> scheduler;     // Algorithm 1 + two-level DE selection (else round-robin)
  double compute_quota = 0.3;        // seconds of predicted attention time per PE forward batch
  // "forward" (the quota bounds a whole forward's predicted attention) | "layer" (each attention layer's);
  // docs/assumptions.md "Compute quota scope" says why forward is the default.
  QuotaScope quota_scope = QuotaScope::Forward;
  // DRAM buffer lifecycle (docs/assumptions.md "Buffer lifecycle"): "stream" reserves each buffer only while it
  // holds KV (PE buffer from read start until each layer went to HBM; DE buffer of a PE-path request from its
  // first forward to the handoff); "reserve" reserves every buffer the request will need at read start.
  BufferLifecycle buffer = BufferLifecycle::Stream;
  // When a decode engine takes the HBM a request will fill (docs/assumptions.md "Decode HBM allocation"):
  // "assign" reserves it when the DE is chosen (Algorithm 1 updates free_HBM there); "handoff" allocates it when
  // the complete prompt KV is in the DE buffer (§2.5), and the request waits there, holding its buffer, until
  // the engine has room.
  DeHbmAt de_hbm = DeHbmAt::Handoff;
  double alpha_seconds = 3.0;        // alpha = tokens one node reads from storage in this time
  double beta_seconds = 5.0;         // beta = tokens one GPU processes in this time
  double z_factor = 1.05;            // DE high-token threshold factor
  int block_tokens = 64;             // Full Block size in tokens (persistence granularity)
  // Layerwise loading only for requests with at least this many new tokens in the forward (SGLang's
  // --disagg-layer-pipeline-min-prefill-len, docs/baselines.md): a shorter one loads all its layers' KV before the
  // forward's first stage computes, holds it in HBM for the forward, and sends all its KV after the last stage.
  // 0 = every request of a layerwise policy streams (the paper's DualPath). Layer groups: sim.layer_group.
  int64_t layerwise_min_tokens = 0;
  // How long a decode engine keeps a round's context pinned in HBM for the agent's next round (pe-pull-from-de;
  // vLLM's decoder_kv_blocks_ttl, default 480 s). Policies that keep none ignore it.
  double de_retention = 480;
  QosSpec qos;
  // The distributed DRAM KV pool of policies that have one (dram-pool, docs/dram-pool.md): the DRAM each node
  // gives to it (the paper's SGL(MC) baseline ran with 1.5 TB per node, digest §A.4) and its eviction.
  struct Pool {
    double bytes_per_node = 1.5e12;
    PoolEviction eviction = PoolEviction::Lru;
  } pool;
};

struct OutputSpec {
  std::string dir = "results";      // results/<scenario name>/ unless --out is given
  double link_sample_interval = 1.0; // seconds between links.csv samples
};

struct SimSpec {
  // "exact": the model of record. "fast": the defaults of the approximate speed switches below become their fast
  // settings (today one: decode_chunk_end = steps with 3-step chunks; the exact re-fills, departures and arrivals,
  // are on by default in both), each still settable on its own; their measured error is in
  // docs/performance.md ("Round 4 (issue 63)", item 4). Read before the keys it changes (core/config/sections.cpp).
  Fidelity fidelity = Fidelity::Exact;
  int layer_group = 0;           // layers coalesced per streamed transfer (0 = automatic)
  int decode_chunk_steps = 4;    // decode steps simulated as one chunk (1 = every step); 4: within 2% JCT of 1
  // Where a decode chunk ends: at the first request that finishes ("first-finish"; with hundreds of requests per
  // group most chunks are then one step) or after decode_chunk_steps steps ("steps": a round that ends inside the
  // chunk ends at its own planned step on a timer, and a handoff boards the chunk at its next step boundary; a
  // speed switch, docs/performance.md "Decode chunks that run past finishes").
  DecodeChunkEnd decode_chunk_end = DecodeChunkEnd::FirstFinish;
  // Which DE-node CNIC carries a PE GPU's KV to or from a DE node's DRAM buffer: "node" (the CNIC at the PE
  // GPU's local index: one flow per PE GPU and DE node) or "engine" (the decode engine's own CNIC).
  KvPort kv_port = KvPort::Node;
  double time_limit = 0;         // stop the simulation at this simulated time (0 = none)
  // How SimGrid re-solves flow rates after an event (its network/optim): "lazy" re-computes only the flows whose
  // constraints changed, "full" all of them; "auto" = full for policies with the DE read path (its flows couple
  // DE DRAM and CNICs with PE CNICs into one system where lazy's bookkeeping costs more than it saves: DS 660B
  // 2P4D DualPath 146 s -> 124 s wall) and lazy otherwise (Basic 34 s vs 36 s). Results agree to ~1e-6.
  LmmUpdate lmm_update = LmmUpdate::Auto;
  // The network engine: "native" (dualpath's own weighted max-min over the fabric, sim/native/native_backend.hpp) or
  // "simgrid" (SimGrid's LMM solver, the engine of record the native one is checked against: same results to
  // ~1e-12, tests/cli/sim_engines.sh). Native is the default because it is 4-7x cheaper per run.
  // lmm_update applies to "simgrid" only.
  NetworkEngine engine = NetworkEngine::Native;
  // What the native engine re-solves after flows leave (and none arrive): only the flows at or above the lowest
  // departed flow's level ("above-departed", the default: the others provably keep their rates,
  // sim/native/maxmin.hpp, docs/performance.md "Departures re-fill above their level"), or their whole components
  // ("whole-component"). The same allocation up to rounding; every bundled scenario's requests.csv and links.csv
  // are byte-identical either way (docs/performance.md, "Round 4 (issue 63)", item 2). Native only.
  DepartureSolve departures = DepartureSolve::AboveDeparted;
  // What the native engine re-solves after flows arrive: only the flows at or above the lowest level at which a
  // link of a new flow saturates ("above-saturation", the default: the flows below it provably keep their rates),
  // or their whole components ("whole-component"); as `departures`, the same allocation up to rounding (docs/
  // performance.md "Arrivals re-fill above their first saturation"). Native only.
  ArrivalSolve arrivals = ArrivalSolve::AboveSaturation;
};

// A fault injected at a simulated time (scenario "faults", `run --fault`; docs/faults.md). Node indices are the
// deployment's: prefill nodes first, then decode nodes.
// The kinds (FaultKind, one row each in core/config/fault_kinds.hpp): snic-down (the node's storage NIC carries
// nothing from `at` until `until`: reads and writes on it fail), snic-degrade (it runs at `factor` x its
// bandwidth), storage-degrade (every storage server's NIC and SSDs run at `factor` x their bandwidth), node-down
// (the node is lost with its engines, memory and writes in flight), cnic-down (one GPU's compute NIC fails: its
// engine is lost).
struct FaultSpec {
  FaultKind kind = FaultKind::SnicDown;
  int node = -1;       // snic-*, node-down, cnic-down: the node; storage-degrade: -1
  double factor = 0;   // degrade: the bandwidth kept, in (0, 1); down: 0
  double at = 0;       // seconds
  double until = -1;   // seconds, > at; -1 = until the end of the run
  int gpu = -1;        // cnic-down: the GPU's index on its node, whose compute NIC fails; others: -1
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source_file;  // the scenario file this was loaded from (for messages)
  std::vector<std::string> overlays;  // overlay files applied on top of it, in order (summary.json "overlays")
  // The calibration applied under the overlays (core/config/calibration.hpp): "ideal" unless a scenario's
  // "calibration", an overlay or --calibration names another.
  struct CalibrationInfo {
    std::string name = "ideal";
    std::string label;
    std::string file;  // "" for a bundled one
  } calibration;
  ModelSpec model;
  // The cluster's hardware: the storage cluster, and every node unless its role names its own (issue 65, mixed
  // hardware: "prefill_topology" / "decode_topology", e.g. prefill on H800-class nodes, decode on H20-class ones).
  // A role's topology has the same gpus_per_node and storage section as `topology` (the loader checks); its GPU,
  // NICs, PCIe, DRAM, buffer and EP constants are its nodes' own. Read a role's hardware through pe_topology() /
  // de_topology(), never `topology` directly, unless the value is the storage cluster's or gpus_per_node.
  Topology topology;
  std::optional<Topology> prefill_topology, decode_topology;
  const Topology& pe_topology() const { return prefill_topology ? *prefill_topology : topology; }
  const Topology& de_topology() const { return decode_topology ? *decode_topology : topology; }
  // Node n's hardware: the deployment's prefill nodes come first.
  const Topology& node_topology(int node) const {
    return node < deployment.prefill_nodes ? pe_topology() : de_topology();
  }
  bool mixed_hardware() const { return prefill_topology.has_value() || decode_topology.has_value(); }
  Deployment deployment;
  WorkloadSpec workload;
  SloSpec slo;
  PolicySpec policy;
  OutputSpec outputs;
  SimSpec sim;
  std::vector<FaultSpec> faults;  // in scenario order
};

}  // namespace dualpath
