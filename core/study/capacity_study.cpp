#include "core/study/capacity_study.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <map>

#include "core/analysis/capacity_search.hpp"
#include "core/config/calibration.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/study/output_folder.hpp"
#include "core/study/probe_memory.hpp"
#include "core/study/run_folders.hpp"
#include "core/study/runnable.hpp"

namespace dualpath::study {
namespace {

namespace fs = std::filesystem;

}  // namespace

nlohmann::json capacity_identity(const CapacityStudySpec& s) {
  nlohmann::json meta = {{"scenario", fs::absolute(s.scenario).lexically_normal().string()},
                         {"overlays", s.overlays},
                         {"set", s.overrides},
                         {"slo", {{"ttft_s", s.ttft}, {"tpot_s", s.tpot}}}};
  if (s.max_probe_duration > 0) meta["max_probe_duration_s"] = s.max_probe_duration;
  return meta;
}

void check_resolution(double resolution) {
  if (!(resolution >= analysis::kMinResolution && resolution < 1))
    throw InputError("--resolution", "expected a fraction in [" + analysis::load_text(analysis::kMinResolution) +
                                         ", 1), e.g. 0.02, found " + analysis::load_text(resolution));
}

namespace {

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

// One policy's search: probe sets proposed by the search, run by `runner` (a shard runs its slice of each set
// first, then whatever of the set is still missing: every shard completes the search, and a probe two shards ran is
// kept once), lengthened while the failing end is a transient. False when a probe failed.
bool search_policy(const CapacityStudySpec& spec, const Scenario& sc, const ProbeMemory& memory, unsigned jobs,
                   double max_duration, ProbeRunner& runner, std::ostream* log, PolicyCapacity& out) {
  const std::string& policy = out.policy;
  analysis::CapacitySearchSpec ss;
  ss.start = sc.workload.aps;
  ss.resolution = spec.resolution;
  ss.parallel = static_cast<int>(jobs);
  double duration = sc.workload.duration;
  std::vector<std::string> overrides = spec.overrides;
  std::string key = policy;
  std::map<double, Probe> probes;
  bool failed = false;
  for (;;) {
    analysis::CapacitySearch search(ss);
    probes.clear();
    for (auto loads = search.next(); !loads.empty(); loads = search.next()) {
      for (int pass = spec.shard ? 0 : 1; pass < 2 && !failed; ++pass) {
        std::vector<ProbeTask> tasks;
        std::vector<double> pending;
        for (size_t k = 0; k < loads.size(); ++k) {
          const double aps = loads[k];
          if (probes.count(aps)) continue;
          const std::string dir = probe_dir(spec.out, key, aps);
          if (auto done = finished_probe(dir, aps, spec.tpot)) {  // an earlier study with the same identity, or a shard
            probes[aps] = *done;
            ++out.reused;
            continue;
          }
          if (pass == 0 && !in_shard(spec.shard, k)) continue;  // first pass: this shard's slice only
          memory.check(aps, duration, "capacity of " + policy);  // a load that cannot fit: exit 2, not bad_alloc
          const ProbeRun r{spec.scenario, spec.overlays, overrides, policy, spec.ttft, spec.tpot,
                           sc.workload.stop == StopMode::SloTtft};
          tasks.push_back({spec.scenario, spec.overlays, probe_overrides(r, aps), make_probe_staging(dir), "", ""});
          pending.push_back(aps);
        }
        if (tasks.empty()) continue;
        if (log) {
          *log << "capacity: " << policy << ": probing APS";
          for (double aps : pending) *log << " " << aps_text(aps);
          *log << "\n";
        }
        runner.run(tasks, jobs, [&](size_t k, const ProbeEnd& end) {
          const double aps = pending[k];
          const std::string dir = probe_dir(spec.out, key, aps);
          if (!end.ok || !publish_folder(tasks[k].out, dir)) {
            if (log) *log << "capacity: probe " << dir << " failed (" << (end.ok ? "publish" : end.error) << ")\n";
            failed = true;
            return;
          }
          probes[aps] = read_probe(dir, aps, spec.tpot);
          if (log)
            *log << "capacity: " << policy << " APS " << aps_text(aps) << ": "
                 << verdict(probes[aps], spec.ttft, spec.tpot) << "\n";
        });
      }
      if (failed) return false;
      for (double aps : loads) search.record(aps, probes.at(aps).meets);
    }
    const auto fail = search.lowest_failing();
    const bool transient_end = fail && probes.at(*fail).transient;
    bool again = transient_end && sc.workload.stop != StopMode::SloTtft && duration > 0;  // probes judge by slo
    if (again && 2 * duration > max_duration) {
      out.undecided = true;
      again = false;
    }
    if (!again) {
      out.capacity = search.capacity();
      out.lowest_failing = fail;
      out.gave_up = search.gave_up();
      out.lowest_failing_transient = transient_end;
      out.probe_duration = duration;
      for (const auto& [aps, p] : probes) {
        out.probes.push_back(p);
        if (aps == out.capacity) out.binds = p.binds;
      }
      return true;
    }
    duration *= 2;
    overrides = spec.overrides;
    overrides.push_back("workload.duration=" + aps_text(duration) + " s");
    key = policy + "/duration=" + aps_text(duration);
    if (log)
      *log << "capacity: " << policy << ": the failing end (" << aps_text(*fail) << " APS) is a transient: "
           << "searching again with " << aps_text(duration) << " s of arrivals\n";
  }
}

}  // namespace

Scenario check_capacity_study(const CapacityStudySpec& spec) {
  for (const auto& [what, v] : {std::pair<const char*, double>{"SLO TTFT", spec.ttft}, {"SLO TPOT", spec.tpot}})
    if (!(v > 0 && v <= 86400))
      throw InputError(what, "expected a duration > 0 s and at most a day (86400 s), found " + aps_text(v) + " s");
  check_resolution(spec.resolution);
  if (spec.max_probe_duration < 0 || !std::isfinite(spec.max_probe_duration))
    throw InputError("--max-probe-duration", "expected a duration > 0, e.g. \"4 h\"");
  const Scenario sc = load_scenario(spec.scenario, spec.overrides, spec.overlays);
  if (spec.policies.empty()) throw InputError("--policy", "expected one or more policy names, e.g. basic,dualpath");
  std::string names;
  for (const auto& p : spec.policies) names += (names.empty() ? "" : ",") + p;
  for (const auto& p : spec.policies) features_at(sc.policy, p, "--policy " + names);  // unknown names list the known
  if (sc.workload.mode != ArrivalMode::Online)
    throw InputError(spec.scenario + ": /workload/mode",
                     "capacity searches the arrival rate of an online scenario; this one is offline "
                     "(use --set workload.mode=online --set workload.aps=A --set workload.duration=T)");
  check_probe_length(sc, spec.scenario);
  check_runnable(sc, spec.scenario);  // a --set every probe would refuse: exit 2 now, not a failed probe
  return sc;
}

CapacityStudy run_capacity_study(const CapacityStudySpec& spec, ProbeRunner& runner, std::ostream* log) {
  const Scenario sc = check_capacity_study(spec);
  CapacityStudy st;
  st.scenario_name = sc.name;
  st.calibration_name = sc.calibration.name;
  st.calibration_label = sc.calibration.label;
  st.identity = capacity_identity(spec);
  st.calibration = calibration_json(sc);
  st.ttft = spec.ttft;
  st.tpot = spec.tpot;
  st.resolution = spec.resolution;
  st.max_probe_duration = spec.max_probe_duration > 0 ? spec.max_probe_duration : 4 * sc.workload.duration;
  st.shard_only = spec.shard.has_value();
  if (spec.shard) st.shard_text = spec.shard->text();
  const ProbeMemory memory(sc);  // check_capacity_study checked the first probe's (check_runnable)
  claim_output_folder(spec.out, "capacity.json", st.identity, "a capacity search");
  const unsigned jobs = spec.jobs ? spec.jobs : std::max(1u, runner.slots());
  for (const auto& policy : spec.policies) {
    PolicyCapacity pc;
    pc.policy = policy;
    if (!search_policy(spec, sc, memory, jobs, st.max_probe_duration, runner, log, pc)) {
      st.probe_failed = true;
      return st;
    }
    st.policies.push_back(std::move(pc));
  }
  if (!st.shard_only) write_json_atomically(spec.out + "/capacity.json", st.to_json());
  return st;
}

nlohmann::json CapacityStudy::to_json() const {
  nlohmann::json result = {{"identity", identity}, {"calibration", calibration}, {"resolution", resolution},
                           {"policies", nlohmann::json::object()}};
  const double base = policies.empty() ? 0 : policies.front().capacity;
  for (const auto& pc : policies) {
    nlohmann::json pj = {{"capacity_aps", pc.capacity},
                         {"lowest_failing_aps", pc.lowest_failing ? nlohmann::json(*pc.lowest_failing) : nlohmann::json()},
                         {"gave_up", pc.gave_up},
                         // The bracket's failing end was a transient (no steady state before the arrivals ended),
                         // not a measured miss: the capacity is then only as good as the probes are long.
                         {"lowest_failing_transient", pc.lowest_failing_transient},
                         {"probes_reused", pc.reused},
                         // The arrivals of the search's probes (lengthened past the scenario's while its failing end
                         // was a transient), and whether the capacity is still undecided at --max-probe-duration.
                         {"probe_duration_s", pc.probe_duration},
                         {"undecided", pc.undecided},
                         {"probes", nlohmann::json::array()}};
    for (const auto& p : pc.probes) pj["probes"].push_back(probe_json(p));
    if (pc.at_capacity()) pj["binds_at_capacity"] = pc.binds;
    pj["ratio_to_" + policies.front().policy] = base > 0 ? nlohmann::json(pc.capacity / base) : nlohmann::json();
    result["policies"][pc.policy] = pj;
  }
  return result;
}

void CapacityStudy::print(std::ostream& out) const {
  if (shard_only) {
    out << "capacity: shard " << shard_text << " done:";
    for (const auto& pc : policies) out << " " << pc.policy << " " << aps_text(pc.capacity) << " APS";
    out << "; merge with the same command without --shard\n";
    return;
  }
  const double base = policies.empty() ? 0 : policies.front().capacity;
  out << "calibration " << calibration_name << ": " << calibration_label << "\n";
  out << "capacity of " << scenario_name << " within TTFT <= " << aps_text(ttft) << " s, TPOT <= "
      << aps_text(tpot * 1e3) << " ms (resolution " << resolution * 100 << "%):\n";
  int w = 12;  // the policy column: as wide as the longest name and a space
  for (const auto& pc : policies) w = std::max(w, static_cast<int>(pc.policy.size()) + 1);
  out << std::left << std::setw(w) << "policy" << std::right << std::setw(12) << "APS" << std::setw(10) << "ratio"
      << std::setw(10) << "probes" << "   binds at capacity\n";
  for (const auto& pc : policies) {
    // An undecided capacity prints what the probes established: at least the last pass ("undecided" when none).
    const std::string aps =
        !pc.undecided ? aps_text(pc.capacity) : pc.capacity > 0 ? ">= " + aps_text(pc.capacity) : "undecided";
    out << std::left << std::setw(w) << pc.policy << std::right << std::setw(12) << aps << std::setw(10)
        << (base > 0 && !pc.undecided ? ratio_text(pc.capacity / base) : std::string("-")) << std::setw(10)
        << pc.probes.size() << "   " << (pc.at_capacity() ? pc.binds : std::string("-"));
    if (pc.undecided)
      out << "  (every probe above was a transient at " << aps_text(pc.probe_duration) << " s of arrivals: see below)";
    else
      out << (pc.gave_up ? "  (search gave up: see capacity.json)" : "")
          << (pc.lowest_failing_transient ? "  (its failing end is a transient, not a miss: longer probes may hold "
                                            "more; raise workload.duration)"
                                          : "");
    out << "\n";
  }
}

void CapacityStudy::check_decided() const {
  // A capacity the probes could not decide is not an answer (issue 80: it used to print 0 or the last pass).
  for (const auto& pc : policies)
    if (pc.undecided)
      throw InputError("workload.duration",
                       pc.policy + "'s capacity is undecided: every probe above " + aps_text(pc.capacity) +
                           " APS was a transient at " + aps_text(pc.probe_duration) +
                           " s of arrivals (the longest --max-probe-duration allows, " + aps_text(max_probe_duration) +
                           " s); it needs longer probes: raise --max-probe-duration or workload.duration");
}

}  // namespace dualpath::study
