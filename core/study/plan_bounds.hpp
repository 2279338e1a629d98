// Closed-form bounds on what a P/D split can hold (issue 79): what one agent of the scenario's workload asks of the
// cluster, read off its trace without simulating, against what a split's resources deliver. `plan --target-aps X`
// rules out unprobed a split whose resources cannot carry X agents per second, and starts its search at the
// smallest cluster some split of which they leave (core/study/plan_target.cpp).
//
// Two bounds, each a resource every hit or every fresh token must cross:
// - **Storage reads** (policies whose every hit crosses a storage NIC): an agent reads its block-aligned hits from
//   storage, `read_bytes` on average (each round's persisted prefix x the model's KV bytes per token, the rule
//   core/kv/zero_service_reuse.hpp replays), through the split's storage NICs (P for Basic, P + D for DualPath),
//   each at its line rate x the storage client's read efficiency.
// - **Prefill compute**: an agent's fresh tokens (prompt - hit) are prefilled on the PE GPUs: `prefill_gpu_s` GPU
//   seconds each (core/cost/cost_model.hpp: every round's attention over its cached context, and its linear work at
//   a full batch's rate, weights and fixed kernel costs amortised away), against P x GPUs per node seconds per second.
//   Only with the roofline timing (a measured profile's tables stop at their largest batch) and without content
//   shared across trajectories (a shared prefix makes hits a solo replay does not see, so fewer fresh tokens).
//
// In steady state, by the renewal-reward theorem, the load an arrival rate X offers is X times the per-agent demand.
// A bound is a bound on the steady state a probe must reach to hold, so a split is ruled out only when the demand
// exceeds what it delivers by more than the stop rule lets a probe's load drift (its tolerance, 5%) plus three
// standard deviations of the demand that half a look-back of Poisson arrivals brings (a compound Poisson sum:
// relative deviation sqrt((1 + cv^2) / (X x lookback / 2)), cv the per-agent demand's coefficient of variation).
// tests/cli/plan_bounds.sh checks that no bound rules out a split whose probe holds.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/plan_splits.hpp"
#include "core/config/scenario.hpp"
#include "core/study/plan_report.hpp"

namespace dualpath::study {

struct AgentDemand {
  double agents = 0;                     // the trajectories averaged over (one agent each)
  double read_bytes = 0, read_cv = 0;    // hit KV read from storage per agent, bytes, and its coefficient of variation
  double prefill_gpu_s = 0, prefill_cv = 0;  // one GPU's prefill seconds per agent (0: no compute bound, below)
  std::string no_compute_bound;              // why the compute bound is not applied ("" when it is)
};

// The scenario's workload (its trace, scaled and cut as its agents are) and model, per agent.
AgentDemand agent_demand(const Scenario& sc);

// One bound of one split at one rate: what it needs and can deliver per second (bytes/s or GPU-seconds/s), and the
// margin the demand may exceed it by before the split is ruled out.
struct SplitBound {
  std::string name;  // "storage reads", "prefill compute"
  double need = 0, can = 0, margin = 0;
  std::string why;  // "its 8 storage NICs read at most 400 GB/s; 4 APS read 453.6 GB/s (+ 10.9% margin)"
  bool rules_out() const { return need > can * (1 + margin); }
};

// The bounds of `s` at `aps` for a variant (its policy's read paths and its links), its scenario `sc` and demand `d`.
// `explain` false leaves each bound's `why` empty (the node-count floor weighs every split of every count).
std::vector<SplitBound> split_bounds(const VariantPlan& vp, const Scenario& sc, const AgentDemand& d,
                                     const analysis::PdSplit& s, double aps, bool explain = true);

// What a split's storage NICs can read at line rate, bytes/s: the prefill nodes' (and, for a policy that reads on
// both paths, the decode nodes'), each side at its own NICs' rate (mixed hardware).
double snic_line_rate(const VariantPlan& vp, const analysis::PdSplit& s);

// The margin of a demand of per-agent coefficient of variation `cv` at `aps` (above).
double bound_margin(double aps, double cv);

}  // namespace dualpath::study
