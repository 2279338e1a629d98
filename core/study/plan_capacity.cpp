#include "core/study/plan_capacity.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/study/study_streams.hpp"
#include "core/study/probe.hpp"
#include "core/study/probe_runner.hpp"
#include "core/config/command_values.hpp"
#include "core/study/run_folders.hpp"
#include "core/analysis/joint_capacity_search.hpp"

namespace dualpath::study {
namespace {

namespace fs = std::filesystem;
using analysis::JointCapacitySearch;

std::string bracket_text(const JointCapacitySearch& s, size_t c) {
  std::ostringstream o;
  const auto fail = s.lowest_failing(c);
  if (s.capacity(c) > 0 && fail) o << "[" << aps_text(s.capacity(c)) << ", " << aps_text(*fail) << ") APS";
  else if (fail) o << "below " << aps_text(*fail) << " APS";
  else o << "at least " << aps_text(s.capacity(c)) << " APS";
  return o.str();
}

// A split's finished search from an earlier plan with the same identity (a rerun, or a shard): its probes.
std::map<double, Probe> finished_search(const CapacityPlanSpec& spec, const CapacityCandidate& c) {
  std::map<double, Probe> out;
  try {
    std::ifstream in(c.dir + "/capacity.json");
    if (!in) return out;
    const auto j = nlohmann::json::parse(in);
    if (j.at("identity") != spec.identity) return out;
    for (const auto& e : j.at("policies").at(c.policy).at("probes")) {
      const Probe p = probe_from_json(e);
      out[p.aps] = p;
    }
  } catch (const std::exception&) {
    out.clear();  // unreadable or of another plan: searched again (its probe folders are still reused)
  }
  return out;
}

}  // namespace

std::vector<CapacityResult> search_capacities(const CapacityPlanSpec& spec, const std::vector<CapacityCandidate>& c) {
  const size_t n = c.size();
  analysis::JointSearchSpec js;
  js.start = spec.start;
  js.resolution = spec.resolution;
  js.joint = spec.joint;
  std::vector<analysis::JointCandidate> jc;
  for (const auto& k : c) jc.push_back({k.group, k.prior});
  JointCapacitySearch search(js, jc);
  std::vector<std::map<double, Probe>> probes(n);
  std::vector<size_t> reused(n, 0);
  for (size_t k = 0; k < n; ++k) {
    probes[k] = finished_search(spec, c[k]);
    for (const auto& [aps, p] : probes[k]) search.record(k, aps, p.meets);
    reused[k] = probes[k].size();
  }

  const unsigned slots = std::max(1u, spec.slots);
  const auto t0 = std::chrono::steady_clock::now();
  size_t run = 0;
  int round = 0;
  bool failed = false;
  std::vector<bool> was_final(n);
  for (size_t k = 0; k < n; ++k) was_final[k] = search.final(k);
  for (auto next = search.next(static_cast<int>(slots)); !next.empty() && !failed;
       next = search.next(static_cast<int>(slots))) {
    ++round;
    std::vector<ProbeTask> jobs;
    std::vector<analysis::JointProbe> pending;
    for (const auto& p : next) {
      const CapacityCandidate& k = c[p.candidate];
      const std::string dir = probe_dir(k.dir, k.policy, p.load);
      if (auto done = finished_probe(dir, p.load, spec.tpot)) {  // finished by an interrupted run of this plan
        probes[p.candidate][p.load] = *done;
        ++reused[p.candidate];
        continue;
      }
      const ProbeRun r{spec.scenario, spec.overlays, k.sets, k.policy, spec.ttft, spec.tpot, spec.ttft_only};
      jobs.push_back({spec.scenario, spec.overlays, probe_overrides(r, p.load), make_probe_staging(dir), "", ""});
      pending.push_back(p);
    }
    if (!jobs.empty()) {
      study_log() << "plan: round " << round << ": probing";
      for (const auto& p : pending) study_log() << " " << c[p.candidate].name << " at " << aps_text(p.load) << " APS";
      study_log() << "\n";
      spec.runner->run(jobs, slots, [&](size_t i, const ProbeEnd& end) {
        const auto& p = pending[i];
        const CapacityCandidate& k = c[p.candidate];
        const std::string dir = probe_dir(k.dir, k.policy, p.load);
        if (!end.ok || !publish_folder(jobs[i].out, dir)) {
          study_log() << "plan: " << k.name << ": probe " << dir << " failed (" << (end.ok ? "publish" : end.error)
                      << ")\n";
          failed = true;
          return;
        }
        probes[p.candidate][p.load] = read_probe(dir, p.load, spec.tpot);
        ++run;
        study_log() << "plan: " << k.name << " at " << aps_text(p.load) << " APS "
                  << verdict(probes[p.candidate][p.load], spec.ttft, spec.tpot) << "\n";
      });
    }
    if (failed) break;
    for (const auto& p : next) search.record(p.candidate, p.load, probes[p.candidate].at(p.load).meets);
    // What this round settled, and an estimate of the time left: the probes still to run at the mean time per
    // probe so far, over the slots.
    for (size_t k = 0; k < n; ++k) {
      if (was_final[k] || !search.final(k)) continue;
      was_final[k] = true;
      study_log() << "plan: " << c[k].name << ": " << state_name(search.state(k)) << ", capacity "
                << bracket_text(search, k);
      if (const auto by = search.dropped_below(k))
        study_log() << " (at or below " << c[*by].name << "'s " << aps_text(search.capacity(*by))
                  << " APS: it cannot be the best)";
      study_log() << ", " << search.probes(k) << " probe(s)\n";
    }
    if (run > 0) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const int left = search.probes_left_estimate();
      study_log() << "plan: " << run << " probe(s) run in " << std::lround(elapsed) << " s";
      if (left > 0)
        study_log() << "; about " << std::lround(elapsed / static_cast<double>(run) * left) << " s left ("
                  << left << " probe(s), a rough count)";
      study_log() << "\n";
    }
  }

  std::vector<CapacityResult> out(n);
  for (size_t k = 0; k < n; ++k) {
    CapacityResult& r = out[k];
    r.ok = !failed && search.final(k);
    r.capacity = search.capacity(k);
    r.lowest_failing = search.lowest_failing(k);
    r.state = state_name(search.state(k));
    if (search.state(k) == JointCapacitySearch::State::Dropped) r.dropped_below = search.dropped_below(k);
    r.probes = search.probes(k);
    r.reused = reused[k];
    if (const auto it = probes[k].find(r.capacity); it != probes[k].end()) {
      r.binds = it->second.binds;
      r.lower_bound = it->second.lower_bound();
      r.prompt_tokens_per_s = it->second.prompt_tokens_per_s;
      r.generated_tokens_per_s = it->second.generated_tokens_per_s;
      r.read_per_agent = it->second.read_per_agent;
    }
    if (!r.ok) continue;
    nlohmann::json pj = {{"capacity_aps", r.capacity},
                         {"lowest_failing_aps", r.lowest_failing ? nlohmann::json(*r.lowest_failing) : nlohmann::json()},
                         {"search", r.state},
                         {"gave_up", r.state == "gave up"},
                         {"lower_bound", r.lower_bound},
                         {"probes_reused", r.reused},
                         {"probes", nlohmann::json::array()}};
    if (r.dropped_below) pj["dropped_below"] = c[*r.dropped_below].name;
    if (!r.binds.empty()) pj["binds_at_capacity"] = r.binds;
    for (const auto& [aps, p] : probes[k]) pj["probes"].push_back(probe_json(p));
    fs::create_directories(c[k].dir);
    write_json_atomically(c[k].dir + "/capacity.json",
                          {{"identity", spec.identity},
                           {"resolution", spec.resolution},
                           {"slo", {{"ttft_s", spec.ttft}, {"tpot_s", spec.tpot}}},
                           {"policies", {{c[k].policy, pj}}}});
  }
  return out;
}

}  // namespace dualpath::study
