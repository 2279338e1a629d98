#include "core/study/plan_bounds.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/cost/cost_model.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/metrics/stop_rule.hpp"
#include "core/workload/agents.hpp"

namespace dualpath::study {
namespace {

// Mean and coefficient of variation of a sample.
void moments(const std::vector<double>& x, double& mean, double& cv) {
  mean = 0, cv = 0;
  if (x.empty()) return;
  for (const double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double var = 0;
  for (const double v : x) var += (v - mean) * (v - mean);
  var /= static_cast<double>(x.size());
  cv = mean > 0 ? std::sqrt(var) / mean : 0;
}

std::string gb(double bytes) {
  std::ostringstream o;
  o << std::setprecision(4) << bytes / 1e9 << " GB/s";
  return o.str();
}

}  // namespace

double bound_margin(double aps, double cv) {
  const StopRuleSpec rule;  // the probes' rule: its tolerance and look-back
  const double arrivals = aps * rule.lookback / 2;
  return rule.tolerance + (arrivals > 0 ? 3 * std::sqrt((1 + cv * cv) / arrivals) : 1e300);
}

AgentDemand agent_demand(const Scenario& sc) {
  // One agent per trajectory, scaled and cut as an online run's agents are (they sample the same trajectories
  // uniformly, so their mean is the trace's).
  WorkloadSpec w = sc.workload;
  w.mode = ArrivalMode::Offline, w.agents = 0;
  std::vector<Agent> agents = make_agents(load_workload_trace(w, ""), w);  // the loader resolved workload.file
  AgentDemand d;
  d.agents = static_cast<double>(agents.size());
  const CostModel cost(sc.model, sc.pe_topology().gpu);
  const int group = sc.deployment.pe_group_gpus;
  // The linear work's rate at a full batch: a billion tokens a GPU reads its weights once for.
  constexpr double kFullBatch = 1e9;
  const double linear_per_token = cost.linear_layer(kFullBatch, group).total() / kFullBatch;
  bool shared = false;
  std::vector<double> reads, prefill;
  for (Agent& a : agents) {
    shared = shared || !a.shares.empty() || a.hashed;
    // Replayed alone (hits from other agents' content are not counted) and with only each prompt's blocks
    // persisted: the simulator issues a round as soon as the last one's pause ends, possibly before that round's
    // decode blocks are written, so its hits may miss them. Fewer reads than any run makes: the safe side.
    a.id = 0;
    const ZeroServiceReuse r = zero_service_reuse({a}, sc.policy.block_tokens, /*persist_generation=*/false);
    reads.push_back(r.hit_tokens * sc.model.kv_bytes_per_token());
    // Each round's fresh tokens attend over its hit, here the most a round can hit (its whole context persisted, the
    // generation too): the fewest fresh tokens, the safe side for a compute bound.
    double gpu_s = 0;
    int64_t context = 0;
    const auto bt = static_cast<int64_t>(sc.policy.block_tokens);
    for (const Round& round : a.rounds) {
      const int64_t prompt = context + round.append;
      const int64_t hit = std::min(context / bt * bt, (prompt - 1) / bt * bt);
      const int64_t fresh = prompt - hit;
      gpu_s += sc.model.n_layers * (cost.attention_layer_time(hit, fresh) + static_cast<double>(fresh) * linear_per_token);
      context = prompt + round.gen;
    }
    prefill.push_back(gpu_s);
  }
  moments(reads, d.read_bytes, d.read_cv);
  if (cost.profiled()) {
    d.no_compute_bound = "the model's step times come from a measured profile";
  } else if (shared) {
    d.no_compute_bound = "the trace shares content across trajectories";
  } else {
    moments(prefill, d.prefill_gpu_s, d.prefill_cv);
  }
  return d;
}

double snic_line_rate(const VariantPlan& vp, const analysis::PdSplit& s) {
  return s.P * vp.bandwidth.pe().snic() + (vp.dual_path ? s.D * vp.bandwidth.de().snic() : 0);
}

std::vector<SplitBound> split_bounds(const VariantPlan& vp, const Scenario& sc, const AgentDemand& d,
                                     const analysis::PdSplit& s, double aps, bool explain) {
  std::vector<SplitBound> out;
  if (vp.reads_from_storage && d.read_bytes > 0) {
    SplitBound b;
    b.name = "storage reads";
    const int snics = s.P + (vp.dual_path ? s.D : 0);
    b.can = snic_line_rate(vp, s) * vp.read_efficiency;  // as much as the storage client reads of the line rate
    b.need = aps * d.read_bytes;
    b.margin = bound_margin(aps, d.read_cv);
    std::ostringstream why;
    if (explain)
      why << std::setprecision(4) << "its " << snics << " storage NICs read at most " << gb(b.can) << ", less than the "
        << gb(b.need) << " an agent's hits take at this rate (" << d.read_bytes / 1e9 << " GB each) beyond a "
        << 100 * b.margin << "% margin";
    b.why = why.str();
    out.push_back(b);
  }
  if (d.prefill_gpu_s > 0) {
    SplitBound b;
    b.name = "prefill compute";
    const int gpus = s.P * sc.pe_topology().gpus_per_node;
    b.can = gpus;
    b.need = aps * d.prefill_gpu_s;
    b.margin = bound_margin(aps, d.prefill_cv);
    std::ostringstream why;
    if (explain)
      why << std::setprecision(4) << "its " << gpus << " prefill GPUs compute at most " << b.can
        << " GPU-seconds a second, less than the " << b.need << " an agent's fresh tokens take at this rate ("
        << d.prefill_gpu_s << " s each at a full batch) beyond a " << 100 * b.margin << "% margin";
    b.why = why.str();
    out.push_back(b);
  }
  return out;
}

}  // namespace dualpath::study
