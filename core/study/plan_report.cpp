#include "core/study/plan_report.hpp"

#include "core/study/study_streams.hpp"
#include "core/study/plan_ideal.hpp"

#include <iomanip>
#include <iostream>
#include <sstream>
#include <utility>

#include "core/analysis/plan_cost.hpp"

namespace dualpath::study {

std::string split_name(const analysis::PdSplit& s) { return std::to_string(s.P) + "P" + std::to_string(s.D) + "D"; }

namespace {

nlohmann::json range_json(const VariantPlan& v) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
  return v.have_range ? nlohmann::json{{"lower", num(v.range.lower)}, {"upper", num(v.range.upper)}}
                      : nlohmann::json{{"lower", nullptr}, {"upper", nullptr}};
}

using Index = std::pair<size_t, size_t>;  // (variant, split)

// The evaluated splits among `among` that the evaluation cannot separate from `best`: a capacity bracket that
// overlaps the best's (its lowest failing rate above the best's capacity), or a JCT within one run's spread.
std::vector<Index> ties_of(const std::vector<VariantPlan>& plans, Index best, const std::vector<Index>& among,
                           bool lower_better) {
  const Outcome& bo = plans[best.first].outcomes[best.second];
  std::vector<Index> tied;
  for (const Index& k : among) {
    const Outcome& o = plans[k.first].outcomes[k.second];
    if (k == best || !o.ok) continue;
    if (lower_better ? std::isfinite(o.value) && !analysis::jct_ahead(bo.value, o.value)
                     : !analysis::capacity_ahead(bo.value, o.lowest_failing))
      tied.push_back(k);
  }
  return tied;
}

// The split's cost at its answer, when the plan was given a price (core/analysis/plan_cost.hpp).
std::optional<analysis::SplitCost> cost_of(const PlanReport& r, const VariantPlan& vp, const analysis::PdSplit& s,
                                           const Outcome& o) {
  if (!r.prices.priced() || !o.ok || !std::isfinite(o.value) || o.value <= 0) return std::nullopt;
  const double agents_per_s = r.objective == PlanObjective::Jct ? o.agents / o.value : o.value;
  return analysis::split_cost(vp.cluster_per_hour(s), agents_per_s,
                              o.prompt_tokens_per_s, o.generated_tokens_per_s);
}

}  // namespace

nlohmann::json cost_basis_json(const analysis::Prices& p) {
  const char* key = p.per_gpu ? "gpu_hour" : "node_hour";
  if (p.every) return {{key, *p.every}};
  return {{key, p.by_topology}};
}

namespace {

nlohmann::json cost_json(const analysis::SplitCost& c) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
  return {{"per_hour", num(c.per_hour)},
          {"per_agent", num(c.per_agent)},
          {"per_million_input_tokens", num(c.per_million_input_tokens)},
          {"per_million_output_tokens", num(c.per_million_output_tokens)}};
}

}  // namespace

std::vector<std::string> split_overrides(const std::vector<std::string>& base, const VariantPlan& vp,
                                         const analysis::PdSplit& s) {
  std::vector<std::string> sets = base;
  sets.insert(sets.end(), vp.variant.overrides.begin(), vp.variant.overrides.end());
  sets.insert(sets.end(), {"deployment.prefill_nodes=" + std::to_string(s.P),
                           "deployment.decode_nodes=" + std::to_string(s.D),
                           "deployment.pe_group_gpus=" + std::to_string(s.pe_group_gpus),
                           "deployment.de_group_gpus=" + std::to_string(s.de_group_gpus)});
  return sets;
}

std::string dollars(double x) {
  if (!std::isfinite(x)) return "-";
  std::ostringstream o;
  o << "$" << std::fixed << std::setprecision(x < 10 ? 4 : 2) << x;
  return o.str();
}

nlohmann::json report_plan(const PlanReport& r, const std::vector<VariantPlan>& plans, bool& has_best) {
  auto candidate_name = [&](size_t vi, size_t i) {
    return (r.varied ? plans[vi].variant.label + " " : std::string()) + split_name(plans[vi].splits[i]);
  };
  const bool lower_better = r.objective == PlanObjective::Jct;
  const std::string unit = lower_better ? "JCT (s)" : "capacity (APS)";
  auto margin_of = [&](double best, double next) { return lower_better ? next / best - 1 : best / next - 1; };
  nlohmann::json out = {{"identity", r.identity}, {"objective", name_of(r.objective)}, {"splits", nlohmann::json::array()}};
  if (r.budget) out["budget_gpus"] = *r.budget;
  if (r.prices.priced()) out["cost_basis"] = cost_basis_json(r.prices);
  const bool priced = r.prices.priced();
  if (plans.size() == 1) out["nodes"] = plans[0].nodes;
  out["analytic_pd_range"] = range_json(plans[0]);
  std::vector<std::optional<double>> all_values;
  std::vector<std::pair<size_t, size_t>> all_index;
  study_out() << r.title << "\n";
  for (size_t vi = 0; vi < plans.size(); ++vi) {
    const auto& vp = plans[vi];
    study_out() << "\n";
    if (r.varied) study_out() << "variant " << vp.variant.label << ": ";
    study_out() << vp.nodes << " nodes; §4.2 bottleneck-free range " << std::setprecision(3) << vp.range.lower
              << " <= P/D <= " << vp.range.upper << (vp.have_range ? "" : " (empty)") << "\n";
    study_out() << std::left << std::setw(8) << "split" << std::setw(10) << "P/D" << std::setw(10) << "in range"
              << std::setw(14) << "EP groups" << std::setw(lower_better ? 16 : 22)
              << (lower_better ? unit : std::string("APS < fails at")) << (priced ? "$/agent     " : "") << "binds\n";
    std::vector<std::optional<double>> values;
    for (size_t i = 0; i < vp.splits.size(); ++i) {
      const auto& s = vp.splits[i];
      const auto& o = vp.outcomes[i];
      const bool inside = vp.have_range && analysis::in_range(vp.range, s.P, s.D);
      nlohmann::json e = {{"P", s.P},
                          {"D", s.D},
                          {"pe_group_gpus", s.pe_group_gpus},
                          {"de_group_gpus", s.de_group_gpus},
                          {"in_analytic_range", inside},
                          {"feasible", s.feasible}};
      if (r.varied) e["variant"] = vp.variant.label;
      std::ostringstream groups, val;
      groups << "EP" << s.pe_group_gpus << "/EP" << s.de_group_gpus;
      if (!s.feasible) {
        e["why"] = s.why;
        val << "infeasible";
      } else if (!o.ok) {
        val << "failed";
      } else if (lower_better) {
        e["jct_s"] = o.value;
        e["binds"] = o.binds;
        val << std::setprecision(5) << o.value;
      } else {
        // A bracket [capacity, lowest failing); a dropped split's is only as narrow as needed to show that it
        // cannot be the best.
        e["capacity_aps"] = std::isfinite(o.value) ? nlohmann::json(o.value) : nlohmann::json();
        e["lowest_failing_aps"] = std::isfinite(o.lowest_failing) ? nlohmann::json(o.lowest_failing) : nlohmann::json();
        e["binds"] = o.binds;
        e["search"] = o.search;
        e["probes"] = o.probes;
        e["lower_bound"] = o.lower_bound;
        if (!o.dropped_below.empty()) e["dropped_below"] = o.dropped_below;
        if (std::isfinite(o.value)) val << std::setprecision(4) << o.value << " ";
        if (std::isfinite(o.lowest_failing)) val << "< " << std::setprecision(4) << o.lowest_failing;
        else val << "(no rate failed)";
      }
      const auto cost = cost_of(r, vp, s, o);
      if (cost) e["cost"] = cost_json(*cost);
      out["splits"].push_back(e);
      values.push_back(o.ok && std::isfinite(o.value) ? std::optional<double>(o.value) : std::nullopt);
      all_values.push_back(values.back());
      all_index.emplace_back(vi, i);
      study_out() << std::left << std::setw(8) << split_name(s) << std::setw(10) << std::setprecision(3)
                << static_cast<double>(s.P) / s.D << std::setw(10) << (inside ? "yes" : "no") << std::setw(14)
                << groups.str() << std::setw(lower_better ? 16 : 22) << val.str();
      if (priced) study_out() << std::setw(12) << (cost ? dollars(cost->per_agent) : std::string("-"));
      study_out() << (o.ok ? o.binds : s.why);
      if (o.ok && o.lower_bound) study_out() << (o.binds.empty() ? "" : "; ") << "a lower bound (every agent finished)";
      if (o.ok && !o.dropped_below.empty())
        study_out() << (o.binds.empty() ? "" : "; ") << "dropped: it fails at or below " << o.dropped_below
                  << "'s capacity";
      if (o.ok && o.search == "gave up") study_out() << "; the search gave up (no rate met the SLO)";
      study_out() << "\n";
      if (vp.ideal && vp.ideal->split == i) out["splits"].back()["ideal"] = ideal_json(*vp.ideal);
    }
    print_ideal(vp);
    if (r.varied) {
      const auto bt = analysis::best_two(values, lower_better);
      nlohmann::json v = {{"label", vp.variant.label}, {"set", vp.variant.overrides}, {"nodes", vp.nodes},
                          {"analytic_pd_range", range_json(vp)}};
      if (bt.best) {
        v["best"] = split_name(vp.splits[*bt.best]);
        study_out() << "best for this variant: " << split_name(vp.splits[*bt.best]);
        std::vector<Index> own;
        for (size_t i = 0; i < vp.splits.size(); ++i) own.emplace_back(vi, i);
        const auto tied = ties_of(plans, {vi, *bt.best}, own, lower_better);
        v["tie"] = !tied.empty();
        if (bt.runner_up) {
          const double m = margin_of(*values[*bt.best], *values[*bt.runner_up]);
          v["runner_up"] = split_name(vp.splits[*bt.runner_up]);
          v["margin"] = m;
          const Outcome& ro = vp.outcomes[*bt.runner_up];
          if (tied.empty() && ro.search == "dropped")
            study_out() << ", ahead of " << split_name(vp.splits[*bt.runner_up]) << ", which fails at "
                      << std::setprecision(4) << ro.lowest_failing << " APS";
          else if (tied.empty())
            study_out() << ", " << std::setprecision(3) << 100 * m << "% ahead of " << split_name(vp.splits[*bt.runner_up]);
        }
        for (size_t t = 0; t < tied.size(); ++t)
          study_out() << (t == 0 ? ", a TIE with " : t + 1 == tied.size() ? " and " : ", ")
                    << split_name(vp.splits[tied[t].second]);
        size_t evaluated = 0;
        for (const auto& o : vp.outcomes) evaluated += o.ok;
        if (!bt.runner_up && tied.empty() && evaluated > 1)
          study_out() << ", ahead of every other split (each fails at or below its capacity)";
        study_out() << "\n";
      }
      out["variants"].push_back(v);
    }
  }

  const auto bt = analysis::best_two(all_values, lower_better);
  if (bt.best) {
    const auto [bv, bi] = all_index[*bt.best];
    const auto& b = plans[bv];
    const Outcome& bo = b.outcomes[bi];
    nlohmann::json rec = {{"split", split_name(b.splits[bi])}, {"value", bo.value}, {"binds", bo.binds}};
    if (r.varied) rec["variant"] = b.variant.label;
    const auto cost = cost_of(r, b, b.splits[bi], bo);
    if (cost) rec["cost"] = cost_json(*cost);
    study_out() << "\nrecommended: " << candidate_name(bv, bi) << " (" << (lower_better ? "JCT " : "capacity ")
              << std::setprecision(5) << bo.value << (lower_better ? " s" : " APS")
              << ", binds on " << bo.binds << "; "
              << (b.have_range && analysis::in_range(b.range, b.splits[bi].P, b.splits[bi].D) ? "inside" : "outside")
              << " the §4.2 bottleneck-free range)";
    const auto tied = ties_of(plans, {bv, bi}, all_index, lower_better);
    const bool tie = !tied.empty();
    if (bt.runner_up) {
      const auto [rv, ri] = all_index[*bt.runner_up];
      const Outcome& ro = plans[rv].outcomes[ri];
      rec["runner_up"] = split_name(plans[rv].splits[ri]);
      if (r.varied) rec["runner_up_variant"] = plans[rv].variant.label;
      rec["margin"] = margin_of(bo.value, ro.value);
      if (!tie && ro.search == "dropped")  // its bracket is only as narrow as needed to rule it out
        study_out() << ", ahead of the runner-up " << candidate_name(rv, ri) << ", which fails at "
                  << std::setprecision(4) << ro.lowest_failing << " APS (this split serves at least "
                  << std::setprecision(3) << 100 * (bo.value / ro.lowest_failing - 1) << "% more)";
      else if (!tie)
        study_out() << ", " << std::setprecision(3) << 100 * margin_of(bo.value, ro.value)
                  << "% better than the runner-up " << candidate_name(rv, ri);
    } else if (!tie && all_index.size() > 1) {
      study_out() << ", ahead of every other split (each fails at or below its capacity)";
    }
    if (tie) {
      // Not a winner: the evaluation cannot separate them. Say what would.
      rec["tied_with"] = nlohmann::json::array();
      study_out() << "\nbut it is a TIE with";
      for (size_t t = 0; t < tied.size(); ++t) {
        rec["tied_with"].push_back(candidate_name(tied[t].first, tied[t].second));
        study_out() << (t == 0 ? " " : t + 1 == tied.size() ? " and " : ", ") << candidate_name(tied[t].first, tied[t].second);
      }
      study_out() << ", not a winner: ";
      if (lower_better) {
        study_out() << "their JCTs are within the " << 100 * analysis::kJctTieMargin
                  << "% one run moves under a tiny perturbation";
      } else {
        study_out() << "its capacity " << std::setprecision(5) << bo.value << " APS is below the lowest failing rate of "
                  << (tied.size() > 1 ? "each" : "the other") << ", so the brackets overlap; a finer --resolution "
                  << "(now " << r.resolution << ") or --objective jct on an offline run would separate them";
      }
    }
    if (bo.lower_bound) study_out() << "\n(its capacity is a lower bound: every agent finished before a steady state; "
                                     "a longer workload.duration would decide)";
    if (cost)
      study_out() << "\ncost at " << dollars(cost->per_hour) << " an hour for its " << b.nodes << " nodes: "
                << dollars(cost->per_agent) << " per agent, " << dollars(cost->per_million_input_tokens)
                << " per million input tokens, " << dollars(cost->per_million_output_tokens)
                << " per million output tokens (each figure the whole cost)";
    rec["tie"] = tie;
    study_out() << "\n";
    out["recommendation"] = rec;
  } else {
    study_out() << "\nno split could be evaluated\n";
  }
  has_best = bt.best.has_value();
  return out;
}

}  // namespace dualpath::study
