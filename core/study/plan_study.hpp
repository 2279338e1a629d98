// The plan study (docs/capacity.md): every P/D split of a cluster, for every combination of the --vary values,
// evaluated by JCT (one run each) or by SLO capacity (one joint search, core/study/plan_capacity.hpp), or the
// inverse question, the fewest nodes holding a target rate (core/study/plan_target.hpp); the best split explained
// and plan.json written (core/study/plan_report.hpp). What `dualpath plan` and Python's `dualpath.plan` both call;
// their runs go through a ProbeRunner (the command line's children, or threads of the Python process).
//
// In three steps, so that the command line can put its own between them: read_plan_inputs checks every option and
// loads the scenario (the band forks there); setup_plan loads and checks each variant and prices it, says what the
// plan will cost, and builds the plan's identity (Slurm submits there); run_plan_study runs it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/plan_cost.hpp"
#include "core/analysis/vary_grid.hpp"
#include "core/config/command_values.hpp"
#include "core/config/scenario.hpp"
#include "core/study/plan_report.hpp"
#include "core/study/probe_runner.hpp"

namespace dualpath::study {

// The most candidates (feasible splits of every variant) a plan evaluates unless max_candidates raises it: each is
// at least one simulation, and --nodes 10000 once started 9,999 of them with no word of the cost. 500 covers every
// split of the paper's 1,152-GPU cluster (144 nodes) three times over.
constexpr size_t kDefaultMaxCandidates = 500;

struct PlanStudySpec {
  std::string scenario, out, objective = "jct", policy;  // policy "": the scenario's
  std::optional<int> nodes;
  std::optional<long long> budget;  // GPUs
  unsigned jobs = 0;                // runs at once (0: the runner's slots)
  double resolution = 0.02;
  bool resolution_given = false;    // a JCT plan refuses one: it has no search
  std::string slo_ttft, slo_tpot;   // capacity objective: each split's search's limits ("": the scenario's)
  std::vector<std::string> overrides, overlays, vary;
  std::optional<Shard> shard;
  size_t max_candidates = kDefaultMaxCandidates;
  std::string node_hour_cost, gpu_hour_cost;  // dollars, as given (core/analysis/plan_cost.hpp)
  bool ideal = false;                         // the Oracle's capacity and the §4.2 read bound beside the best split
  std::optional<double> target_aps;           // the inverse question
  int max_nodes = 64;                         // its search's largest cluster
  bool ties = false;                          // its answer's every split decided (core/study/plan_target.hpp)
  bool bounds = true;                         // its bounds rule splits out unprobed
};

struct PlanInputs {
  PlanObjective objective = PlanObjective::Jct;
  analysis::Prices prices;
  std::vector<analysis::VaryAxis> axes;
  Scenario base;  // the scenario with the overlays and --set list
};

struct PlanSetup {
  std::vector<VariantPlan> plans;
  std::vector<Scenario> scenarios;  // each variant's, loaded
  std::string policy;               // --policy, or the scenario's
  nlohmann::json identity;          // plan.json's, which a rerun into the same folder must match
};

struct PlanEnd {
  bool failed = false;     // a run or probe failed (the command's exit 1)
  bool shard_only = false; // a shard's slice: no plan.json
  bool has_best = false;   // some split could be evaluated (plan.json has a recommendation)
};

// Every option's check (InputError naming it) and the scenario, loaded.
PlanInputs read_plan_inputs(const PlanStudySpec& spec);
// Each variant loaded, checked, priced and its splits enumerated; its size told on the study's log (refused beyond
// max_candidates); the identity.
PlanSetup setup_plan(const PlanStudySpec& spec, const PlanInputs& in);
// Claims the folder, runs what the plan needs through `runner`, prints the tables and writes plan.json.
PlanEnd run_plan_study(const PlanStudySpec& spec, const PlanInputs& in, PlanSetup& setup, ProbeRunner& runner);

}  // namespace dualpath::study
