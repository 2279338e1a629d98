// `dualpath plan --target-aps X` (docs/capacity.md, "The inverse question"): per variant (e.g. per policy), the
// fewest nodes and the P/D splits of them that hold X agents per second within the SLO, with the bracket (the count
// below fails: every split was probed and missed, or a bound ruled it out) and what binds. The closed-form bounds
// (core/study/plan_bounds.hpp) rule splits out unprobed and give the node-count search its floor
// (core/analysis/node_count_search.hpp); a count is decided by probes at exactly X (`dualpath run` children with the
// stop rule, core/study/probe.hpp, run by a ProbeRunner), --jobs at a time, stopping at the first round with a split
// that holds; at the answer the other splits are probed when they fit in one more round, or with --ties. Probes go
// to DIR/target[/<variant>]/nodes=<N>/<split>/probes/<policy>/aps=<X>/, published when finished, so a rerun reuses
// them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/study/plan_report.hpp"
#include "core/study/probe_runner.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::study {

struct TargetPlanSpec {
  std::string scenario, out;
  std::vector<std::string> overlays, overrides;  // the user's, before each variant's and split's
  double target_aps = 0;
  int max_nodes = 64;
  double ttft = 4, tpot = 0.05;  // SLO limits, seconds
  bool ttft_only = false;        // the scenario's workload.stop is slo-ttft
  unsigned slots = 1;            // probes at once
  bool varied = false;
  // At the answer, every split decided to name the ties (--ties); otherwise only when the rest fit in one round.
  bool ties = false;
  bool bounds = true;  // rule splits out unprobed by the bounds (--bounds off: every split probed)
  analysis::Prices prices;
  nlohmann::json identity;
  ProbeRunner* runner = nullptr;  // runs the probes (the command line's children, or threads of this process)
};

// The inverse question's options, checked before anything is loaded: InputError naming the option otherwise.
void check_target_question(double target_aps, int max_nodes, bool capacity_objective, bool resolution_given);

// Searches every variant (plans: their variant, folder, policy, read paths and bandwidth; scenarios: each variant's
// loaded scenario, for its splits), prints the answers and writes DIR/plan.json. Returns false when a probe failed.
bool run_target_plan(const TargetPlanSpec& spec, const std::vector<VariantPlan>& plans,
                     const std::vector<Scenario>& scenarios);

}  // namespace dualpath::study
