// What `dualpath plan` found, for the terminal and for plan.json: each variant's splits with their JCT or capacity
// bracket and binding resource, the best per variant, and the recommendation overall, called a TIE when the
// evaluation cannot separate it from another split (overlapping capacity brackets, or JCTs within one run's
// spread: core/analysis/vary_grid.hpp).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/plan_cost.hpp"
#include "core/analysis/plan_splits.hpp"
#include "core/analysis/vary_grid.hpp"
#include "core/config/choices.hpp"

namespace dualpath::study {

struct Outcome {
  bool ok = false;
  double value = NAN;  // JCT (s) or capacity (APS); NaN for a dropped split that met the SLO nowhere
  double lowest_failing = NAN;  // capacity: the bracket's upper end (NaN: no rate failed)
  std::string binds;
  std::string search;        // capacity: "done", "dropped" (it cannot be the best) or "gave up"
  std::string dropped_below; // capacity, dropped: the split whose capacity is at or above its lowest failing rate
  bool lower_bound = false;  // capacity: the probe at the capacity ended with every agent finished
  size_t probes = 0;
  // What it served, for its cost: agents (JCT: the run's agents; capacity: unused, the capacity is the rate) and
  // prompt and generated tokens per second (JCT: over the run; capacity: the probe at the capacity); <= 0: unknown.
  double agents = 0, prompt_tokens_per_s = -1, generated_tokens_per_s = -1;
  double read_per_agent = -1;  // capacity: the probe at the capacity's storage reads per agent, bytes (-1: unknown)
};

// How far a variant's best split is from ideal (`plan --objective capacity --ideal`; core/study/plan_ideal.hpp).
struct IdealFigures {
  size_t split = 0;  // the variant's best split (index into its splits)
  // The §4.2 read bound in APS: the hit-KV bytes/s the split's links can read over the bytes an agent read at the
  // capacity (NaN: the policy loads no KV from storage, or the probe has no figure), and the links full first.
  double read_bound_aps = NAN;
  std::string read_bound_link;
  // The Oracle's capacity on the same split (free KV loads: no storage, no KV transfers) and its bracket.
  bool oracle_ok = false;
  double oracle_aps = NAN, oracle_lowest_failing = NAN;
  std::string oracle_dir;  // where its search ran (variants that differ only in policy share one)
};

// One cluster variant (a combination of --vary values) and the splits evaluated for it.
struct VariantPlan {
  analysis::Variant variant;
  std::string folder;  // DIR/splits[/<variant folder>]
  int nodes = 0;
  std::vector<analysis::PdSplit> splits;
  std::vector<Outcome> outcomes;
  analysis::BandwidthRange range;
  bool have_range = false;
  std::string policy;        // the variant's (--policy, or the scenario's policy.name, which --vary may set)
  bool dual_path = true;     // its policy reads through DE SNICs too (the §4.2 read rate of each split)
  bool reads_from_storage = true;  // every hit it loads comes through storage NICs (no DRAM pool, no HBM-resident pull)
  analysis::BandwidthParams bandwidth;
  // What a storage client delivers on reads, as a share of its SNIC (topology.storage.client_read_efficiency).
  double read_efficiency = 1;
  // A prefill and a decode node's price per hour on this variant's hardware (NaN: the plan has no prices).
  double pe_node_hour = NAN, de_node_hour = NAN;
  double cluster_per_hour(const analysis::PdSplit& s) const {
    // One kind of node: (P + D) x its price, the figure before roles had their own (to the last bit).
    return pe_node_hour == de_node_hour ? (s.P + s.D) * pe_node_hour : s.P * pe_node_hour + s.D * de_node_hour;
  }
  std::optional<IdealFigures> ideal;  // --ideal
};

std::string split_name(const analysis::PdSplit& s);  // "2P4D"
std::string dollars(double x);  // "$0.3302", "$294.96"; "-" when not finite
// plan.json's "cost_basis": the prices the plan was given.
nlohmann::json cost_basis_json(const analysis::Prices& p);
// Every --set of a split's runs: the user's (`base`), the variant's, then the split's P, D and EP groups.
std::vector<std::string> split_overrides(const std::vector<std::string>& base, const VariantPlan& vp,
                                         const analysis::PdSplit& s);

// What a plan ranks the splits by: the lowest JCT of an offline run, or the highest SLO capacity of an online one.
enum class PlanObjective : uint8_t { Jct, Capacity };
inline constexpr ChoiceName<PlanObjective> kPlanObjectives[] = {{PlanObjective::Jct, "jct"},
                                                                {PlanObjective::Capacity, "capacity"}};
inline const char* name_of(PlanObjective v) { return choice_name(kPlanObjectives, v); }

struct PlanReport {
  PlanObjective objective = PlanObjective::Jct;
  std::string title;       // the first line printed
  bool varied = false;     // --vary was given (variant labels are printed)
  double resolution = 0;   // capacity searches' (what a finer one would be)
  nlohmann::json identity;
  std::optional<long long> budget;  // GPUs
  // --node-hour-cost or --gpu-hour-cost, and the decode nodes' own (core/analysis/plan_cost.hpp).
  analysis::Prices prices;
};

// Prints the tables and the recommendation on stdout and returns plan.json's content; `has_best` is set when some
// split could be evaluated.
nlohmann::json report_plan(const PlanReport& r, const std::vector<VariantPlan>& plans, bool& has_best);

}  // namespace dualpath::study
