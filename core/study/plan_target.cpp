#include "core/study/plan_target.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "core/study/plan_bounds.hpp"
#include "core/study/study_streams.hpp"
#include "core/study/probe.hpp"
#include "core/study/probe_runner.hpp"
#include "core/config/command_values.hpp"
#include "core/study/run_folders.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/node_count_search.hpp"
#include "core/analysis/plan_cost.hpp"
#include "core/analysis/plan_splits.hpp"
#include "core/config/input_error.hpp"

namespace dualpath::study {
namespace {

// One split of one node count and its probe at the target (once decided).
struct SplitProbe {
  analysis::PdSplit split;
  std::string dir;  // the split's folder
  std::optional<Probe> probe;
  std::string ruled_out;  // why it cannot hold the load, unprobed; "" = probed or undecided
  std::string bound;      // the bound that ruled it out ("storage reads", "prefill compute", "measured reads")
  bool decided() const { return probe || !ruled_out.empty(); }
};

// One node count's verdict: the splits probed, in order.
struct Decision {
  int nodes = 0;
  bool holds = false;
  std::vector<SplitProbe> splits;
};

// The feasible splits of `nodes`, the likeliest to hold the load first. Where the closed-form storage-reads bound
// is in force (core/study/plan_bounds.hpp), a split it leaves is one whose storage NICs can carry the load's reads
// (within the margin), and what can still fail it is the decode side, which a lopsided split starves: the most even
// first. Otherwise those that read the most through their storage NICs first (the §4.2 read rate of the policy's
// paths), ties to the most even split.
std::vector<analysis::PdSplit> ordered_splits(const Scenario& sc, const VariantPlan& vp, bool bounded, int nodes) {
  std::vector<analysis::PdSplit> out;
  for (const auto& s : analysis::enumerate_splits(sc, nodes))
    if (s.feasible) out.push_back(s);
  auto rate = [&](const analysis::PdSplit& s) {
    return bounded ? 0.0 : analysis::max_read_rate_snics(vp.bandwidth, s.P, s.D, vp.dual_path);
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    const double ra = rate(a), rb = rate(b);
    if (ra != rb) return ra > rb;
    return std::abs(a.P - a.D) < std::abs(b.P - b.D);
  });
  return out;
}

class VariantTarget {
 public:
  VariantTarget(const TargetPlanSpec& spec, const VariantPlan& vp, const Scenario& sc)
      : spec_(spec), vp_(vp), sc_(sc), base_(spec.out + "/target" + (spec.varied ? vp.folder.substr(vp.folder.rfind('/')) : "")),
        demand_model_(agent_demand(sc)) {
    std::ostringstream m;
    m << std::setprecision(4) << "plan: " << label() << "the bounds, from the trace: an agent reads "
      << demand_model_.read_bytes / 1e9 << " GB of hits from storage (cv " << demand_model_.read_cv << ")";
    if (demand_model_.no_compute_bound.empty())
      m << " and takes " << demand_model_.prefill_gpu_s << " prefill GPU-seconds (cv " << demand_model_.prefill_cv << ")";
    else
      m << "; no prefill compute bound: " << demand_model_.no_compute_bound;
    if (!spec_.bounds) m << " (--bounds off: none rules a split out)";
    else if (spec_.ttft_only) m << " (the TTFT-only reading: a probe may hold before its load is steady, so they rule "
                                   "nothing out)";
    study_log() << m.str() << "\n";
  }

  // Probes the splits of `nodes` in order, --jobs at a time, until one meets the SLO at the target (`all`: every
  // split, to name the ties at the answer). False when a probe failed to run.
  bool decide(int nodes, bool all, Decision& d) {
    d.nodes = nodes;
    if (d.splits.empty())
      for (const auto& s : ordered_splits(sc_, vp_, read_bound_in_force(), nodes))
        d.splits.push_back({s, base_ + "/nodes=" + std::to_string(nodes) + "/" + split_name(s), std::nullopt, "", ""});
    const unsigned slots = std::max(1u, spec_.slots);
    rule_out(d);
    // Rounds of the next --jobs undecided splits, the same rounds whether a probe is run or found finished (a rerun
    // replays them, so it decides and prints exactly what the first run did).
    for (size_t next = 0; next < d.splits.size() && (all || !d.holds);) {
      std::vector<size_t> round;
      for (; next < d.splits.size() && round.size() < slots; ++next)
        if (!d.splits[next].decided()) round.push_back(next);
      std::vector<ProbeTask> jobs;
      std::vector<size_t> pending;
      for (const size_t k : round) {
        SplitProbe& sp = d.splits[k];
        const std::string dir = probe_dir(sp.dir, vp_.policy, spec_.target_aps);
        if ((sp.probe = finished_probe(dir, spec_.target_aps, spec_.tpot))) {  // an earlier run of this plan's
          demand_ = std::max(demand_, sp.probe->storage_read_per_s);
          ++reused_;
          continue;
        }
        const ProbeRun r{spec_.scenario, spec_.overlays, split_overrides(spec_.overrides, vp_, sp.split),
                         vp_.policy, spec_.ttft, spec_.tpot, spec_.ttft_only};
        jobs.push_back(
            {spec_.scenario, spec_.overlays, probe_overrides(r, spec_.target_aps), make_probe_staging(dir), "", ""});
        pending.push_back(k);
      }
      bool failed = false;
      if (!jobs.empty()) spec_.runner->run(jobs, slots, [&](size_t i, const ProbeEnd& end) {
        SplitProbe& sp = d.splits[pending[i]];
        const std::string dir = probe_dir(sp.dir, vp_.policy, spec_.target_aps);
        if (!end.ok || !publish_folder(jobs[i].out, dir)) {
          study_log() << "plan: " << label() << split_name(sp.split) << ": probe " << dir << " failed ("
                      << (end.ok ? "publish" : end.error) << ")\n";
          failed = true;
          return;
        }
        sp.probe = read_probe(dir, spec_.target_aps, spec_.tpot);
        ++run_;
        demand_ = std::max(demand_, sp.probe->storage_read_per_s);
        study_log() << "plan: " << label() << split_name(sp.split) << " at " << aps_text(spec_.target_aps) << " APS "
                  << verdict(*sp.probe, spec_.ttft, spec_.tpot) << "\n";
      });
      if (failed) return false;
      for (const auto& sp : d.splits) d.holds = d.holds || (sp.probe && sp.probe->meets);
      rule_out(d);
    }
    return true;
  }

  // The whole search; false when a probe failed to run.
  bool search() {
    const int floor = bound_floor();
    analysis::NodeCountSearch s(2, spec_.max_nodes, floor);
    if (floor > 2) {  // the count below the floor, every split ruled out: the bracket's failing end when it holds
      const int below = std::min(floor, spec_.max_nodes + 1) - 1;
      if (!decide(below, false, decisions_[below])) return false;
      study_log() << "plan: " << label() << below << " nodes do not hold " << aps_text(spec_.target_aps)
                  << " APS (no split passes the bounds, nor does any of a smaller cluster)\n";
    }
    while (const auto n = s.next()) {
      Decision& d = decisions_[*n];
      if (!decide(*n, false, d)) return false;
      study_log() << "plan: " << label() << *n << " nodes " << (d.holds ? "hold " : "do not hold ")
                << aps_text(spec_.target_aps) << " APS\n";
      s.record(*n, d.holds);
    }
    answer_ = s.answer();
    below_ = s.largest_failing();
    if (!answer_) return true;
    // The ties at the answer: every split decided when asked (--ties), or when the rest fit in one more round.
    Decision& d = decisions_[*answer_];
    size_t undecided = 0;
    for (const auto& sp : d.splits) undecided += sp.decided() ? 0 : 1;
    if (!spec_.ties && undecided > std::max(1u, spec_.slots)) return true;
    return decide(*answer_, true, d);
  }

  std::optional<int> answer() const { return answer_; }
  std::string name() const { return spec_.varied ? vp_.variant.label : std::string(); }
  std::vector<const SplitProbe*> holding() const {
    std::vector<const SplitProbe*> out;
    if (answer_)
      for (const auto& sp : decisions_.at(*answer_).splits)
        if (sp.probe && sp.probe->meets) out.push_back(&sp);
    return out;
  }

  std::optional<analysis::SplitCost> cost() const {
    const auto h = holding();
    if (!spec_.prices.priced() || h.empty()) return std::nullopt;
    // The cheapest holding split (with each kind of node at its own price, ties of one node count can differ).
    const SplitProbe* c = h.front();
    for (const SplitProbe* x : h)
      if (vp_.cluster_per_hour(x->split) < vp_.cluster_per_hour(c->split)) c = x;
    return analysis::split_cost(vp_.cluster_per_hour(c->split), spec_.target_aps, c->probe->prompt_tokens_per_s,
                                c->probe->generated_tokens_per_s);
  }

  // Prints the variant's answer and table; returns its plan.json entry.
  nlohmann::json report() const {
    study_out() << "\n" << (spec_.varied ? "variant " + vp_.variant.label + ": " : std::string());
    nlohmann::json v = {{"policy", vp_.policy}, {"nodes", answer_ ? nlohmann::json(*answer_) : nlohmann::json()},
                        {"largest_failing_nodes", below_ ? nlohmann::json(*below_) : nlohmann::json()},
                        {"decided", nlohmann::json::array()}};
    if (spec_.varied) v["label"] = vp_.variant.label, v["set"] = vp_.variant.overrides;
    const auto h = holding();
    if (answer_) {
      study_out() << *answer_ << " nodes hold " << aps_text(spec_.target_aps) << " APS (";
      v["holding_splits"] = nlohmann::json::array();
      for (size_t i = 0; i < h.size(); ++i) {
        study_out() << (i ? ", " : "") << split_name(h[i]->split) << " binds on " << h[i]->probe->binds;
        v["holding_splits"].push_back({{"split", split_name(h[i]->split)}, {"binds", h[i]->probe->binds}});
      }
      study_out() << ")";
      std::vector<std::string> open;
      for (const auto& sp : decisions_.at(*answer_).splits)
        if (!sp.decided()) open.push_back(split_name(sp.split));
      if (!open.empty()) {
        study_out() << "; " << open.size() << " more of its splits not decided (--ties probes them)";
        v["undecided_splits"] = open;
      }
      if (below_) study_out() << "; " << *below_ << " nodes do not (no split holds it)";
      else study_out() << "; the smallest cluster, 2 nodes";
      study_out() << "\n";
      if (const auto c = cost()) {
        v["cost"] = {{"per_hour", c->per_hour}, {"per_agent", c->per_agent},
                     {"per_million_input_tokens", c->per_million_input_tokens},
                     {"per_million_output_tokens", c->per_million_output_tokens}};
        study_out() << "cost at " << dollars(c->per_hour) << " an hour for its " << *answer_ << " nodes: "
                  << dollars(c->per_agent) << " per agent, " << dollars(c->per_million_input_tokens)
                  << " per million input tokens, " << dollars(c->per_million_output_tokens)
                  << " per million output tokens (each figure the whole cost)\n";
      }
    } else {
      study_out() << "no cluster of up to " << spec_.max_nodes << " nodes holds " << aps_text(spec_.target_aps)
                << " APS (raise --max-nodes)\n";
    }
    study_out() << "nodes  verdict       splits probed at " << aps_text(spec_.target_aps)
              << " APS (+ meets, - misses, * every agent finished first: a lower bound, ! ruled out by a bound)\n";
    for (const auto& [n, d] : decisions_) {
      study_out() << std::left << std::setw(7) << n << std::setw(14) << (d.holds ? "holds" : "does not hold");
      nlohmann::json dj = {{"nodes", n}, {"holds", d.holds}, {"splits", nlohmann::json::array()}};
      for (const auto& sp : d.splits) {
        if (!sp.ruled_out.empty()) {
          study_out() << " " << split_name(sp.split) << "!";
          dj["splits"].push_back({{"split", split_name(sp.split)}, {"meets_slo", false}, {"ruled_out", sp.ruled_out},
                                  {"bound", sp.bound}});
          continue;
        }
        if (!sp.probe) continue;
        study_out() << " " << split_name(sp.split) << (sp.probe->meets ? "+" : "-")
                  << (sp.probe->lower_bound() ? "*" : "");
        dj["splits"].push_back({{"split", split_name(sp.split)}, {"meets_slo", sp.probe->meets},
                                {"binds", sp.probe->binds}, {"probe", probe_json(*sp.probe)}});
      }
      study_out() << "\n";
      v["decided"].push_back(dj);
    }
    // Where the search went: the probes that decided it and the splits each bound ruled out unprobed.
    int probes = 0, ruled = 0;
    std::map<std::string, int> by_bound;
    for (const auto& [n, d] : decisions_)
      for (const auto& sp : d.splits) {
        probes += sp.probe ? 1 : 0;
        if (!sp.bound.empty()) ++by_bound[sp.bound], ++ruled;
      }
    v["search"] = {{"probes", probes}, {"ruled_out", by_bound.empty() ? nlohmann::json::object() : nlohmann::json(by_bound)}};
    study_out() << "search: " << probes << " probes, " << ruled << " splits ruled out unprobed";
    for (auto it = by_bound.begin(); it != by_bound.end(); ++it)
      study_out() << (it == by_bound.begin() ? " (" : ", ") << it->first << " " << it->second;
    study_out() << (by_bound.empty() ? "" : ")") << "\n";
    return v;
  }
  int probes_run() const { return run_; }
  int probes_reused() const { return reused_; }

 private:
  std::string label() const { return spec_.varied ? vp_.variant.label + " " : std::string(); }

  // The closed-form storage-reads bound rules splits out here (core/study/plan_bounds.hpp): every split it leaves
  // can carry the load's reads, and the splits go most even first.
  bool read_bound_in_force() const { return closed_form_in_force() && vp_.reads_from_storage && demand_model_.read_bytes > 0; }
  // The closed-form bounds rule splits out: unless --bounds off, and only where a probe must reach a steady state.
  bool closed_form_in_force() const { return spec_.bounds && !spec_.ttft_only; }

  // The smallest count some feasible split of which the closed-form bounds leave room for (2 with --bounds off or
  // under the TTFT-only reading; max_nodes + 1 when none up to it): every count below it fails unprobed.
  int bound_floor() const {
    if (!closed_form_in_force()) return 2;
    for (int n = 2; n <= spec_.max_nodes; ++n)
      for (const auto& s : analysis::enumerate_splits(sc_, n)) {
        if (!s.feasible) continue;
        bool out = false;
        for (const auto& b : split_bounds(vp_, sc_, demand_model_, s, spec_.target_aps, /*explain=*/false))
          out = out || b.rules_out();
        if (!out) return n;
      }
    return spec_.max_nodes + 1;
  }

  // Rules out the undecided splits of `d` that cannot hold the target, unprobed (none with --bounds off):
  // - the closed-form bounds (core/study/plan_bounds.hpp: the trace's storage reads and prefill compute per agent),
  //   each a steady-state argument, so only where a probe must reach a steady state to hold (workload.stop = slo;
  //   under the TTFT-only reading a probe may hold as a lower bound or a transient before its load is stationary);
  // - the §4.2 read bound, measured: at the target every probe read from storage at some rate, and none can read
  //   faster than the load demands (a probe still ramping up, or saturated, or cut short reads less), so the highest
  //   rate measured is at most the demand. A split whose storage NICs together read less than that cannot keep up
  //   with the load. Only for a policy whose every hit comes through storage NICs (a DRAM pool or an HBM-resident
  //   pull serves hits past them). Sound for a sustained load; a probe of such a split could still pass as a
  //   transient or a lower bound, which the bound reads as what it is, too little.
  void rule_out(Decision& d) {
    if (!spec_.bounds) return;
    for (auto& sp : d.splits) {
      if (sp.decided()) continue;
      if (closed_form_in_force())
        for (const auto& b : split_bounds(vp_, sc_, demand_model_, sp.split, spec_.target_aps))
          if (b.rules_out()) {
            rule(sp, b.name, b.why);
            break;
          }
      if (sp.decided() || !vp_.reads_from_storage || demand_ <= 0) continue;
      const double snics = sp.split.P + (vp_.dual_path ? sp.split.D : 0);
      const double can = snic_line_rate(vp_, sp.split);
      if (can >= demand_) continue;
      std::ostringstream why;
      why << "its " << snics << " storage NICs read at most " << std::setprecision(4) << can / 1e9
          << " GB/s, less than the " << demand_ / 1e9 << " GB/s a probe read at this rate";
      rule(sp, "measured reads", why.str());
    }
  }
  void rule(SplitProbe& sp, const std::string& bound, const std::string& why) const {
    sp.ruled_out = why, sp.bound = bound;
    study_log() << "plan: " << label() << split_name(sp.split) << " ruled out by the " << bound
                << " bound: " << sp.ruled_out << "\n";
  }

  const TargetPlanSpec& spec_;
  const VariantPlan& vp_;
  const Scenario& sc_;
  std::string base_;
  std::map<int, Decision> decisions_;
  double demand_ = 0;  // the highest storage read rate a probe at the target measured, bytes/s
  AgentDemand demand_model_;  // what an agent asks of the cluster, from the trace (the closed-form bounds)
  int run_ = 0, reused_ = 0;          // probes run now, and found finished by an earlier run
  std::optional<int> answer_, below_;
};

}  // namespace

void check_target_question(double target_aps, int max_nodes, bool capacity_objective, bool resolution_given) {
  if (!(std::isfinite(target_aps) && target_aps >= 1e-3 && target_aps <= 1e6))
    throw InputError("--target-aps " + aps_text(target_aps), "expected agents per second in [0.001, 1000000]");
  if (!capacity_objective)
    throw InputError("--target-aps", "the fewest nodes for a load is a capacity question: give --objective capacity "
                                     "and an online scenario");
  if (resolution_given)
    throw InputError("--resolution", "the inverse question probes every split at the target rate and searches no "
                                     "rate: give no --resolution with --target-aps");
  if (max_nodes < 2 || max_nodes > analysis::kMaxPlanNodes)
    throw InputError("--max-nodes " + std::to_string(max_nodes),
                     "expected 2 to " + std::to_string(analysis::kMaxPlanNodes) + " nodes");
}

bool run_target_plan(const TargetPlanSpec& spec, const std::vector<VariantPlan>& plans,
                     const std::vector<Scenario>& scenarios) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<VariantTarget> targets;
  for (size_t i = 0; i < plans.size(); ++i) targets.emplace_back(spec, plans[i], scenarios[i]);
  for (auto& t : targets)
    if (!t.search()) return false;
  // The wall time goes to the log only: plan.json and the answer on stdout are the same for the same question.
  int run = 0, reused = 0;
  for (const auto& t : targets) run += t.probes_run(), reused += t.probes_reused();
  std::ostringstream took;
  took << std::fixed << std::setprecision(1)
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  study_log() << "plan: searched in " << took.str() << " s wall: " << run << " probes run, " << reused
              << " found finished in the folder\n";
  nlohmann::json out = {{"identity", spec.identity}, {"objective", "capacity"}, {"target_aps", spec.target_aps},
                        {"max_nodes", spec.max_nodes}, {"variants", nlohmann::json::array()}};
  if (spec.prices.priced()) out["cost_basis"] = cost_basis_json(spec.prices);
  study_out() << "plan: the fewest nodes holding " << aps_text(spec.target_aps) << " APS within the SLO\n";
  std::optional<int> fewest;
  for (const auto& t : targets) {
    out["variants"].push_back(t.report());
    if (t.answer() && (!fewest || *t.answer() < *fewest)) fewest = t.answer();
  }
  if (fewest && spec.varied) {
    std::vector<std::string> best;
    for (const auto& t : targets)
      if (t.answer() == fewest) best.push_back(t.name());
    study_out() << "\nrecommended: " << best.front() << " on " << *fewest << " nodes";
    if (best.size() > 1) {
      study_out() << ", a TIE with";
      for (size_t i = 1; i < best.size(); ++i) study_out() << (i > 1 ? "," : "") << " " << best[i];
      study_out() << " (as few nodes; compare their costs or a higher --target-aps)";
    }
    study_out() << "\n";
    out["recommendation"] = {{"variant", best.front()}, {"nodes", *fewest}, {"tie", best.size() > 1},
                             {"tied_with", std::vector<std::string>(best.begin() + 1, best.end())}};
  }
  write_json_atomically(spec.out + "/plan.json", out);
  study_out() << "results in " << spec.out << "/plan.json\n";
  return true;
}

}  // namespace dualpath::study
