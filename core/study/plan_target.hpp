// `dualpath plan --target-aps X` (docs/capacity.md, "The inverse question"): per variant (e.g. per policy), the
// fewest nodes and the P/D splits of them that hold X agents per second within the SLO, with the bracket (the count
// below fails: every split of it was probed and missed) and what binds. The node counts are searched by
// core/analysis/node_count_search.hpp; a count is decided by probes at exactly X (`dualpath run` children with the
// stop rule, core/study/probe.hpp, run by a ProbeRunner), its splits in the order of their §4.2 read rate, --jobs at a time, stopping at
// the first that holds; at the answer every split is probed, so ties are named. Probes go to
// DIR/target[/<variant>]/nodes=<N>/<split>/probes/<policy>/aps=<X>/, published when finished, so a rerun reuses
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
