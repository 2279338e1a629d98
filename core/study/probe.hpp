// One SLO capacity probe: a run of an online scenario at one arrival rate with the paper's stop rule
// (workload.stop = slo), and its verdict read back from its folder's summary.json. A ProbeRunner
// (core/study/probe_runner.hpp) runs it: a `dualpath run` child on the command line, a thread of this process from
// Python. Shared by the capacity study (one search per policy) and `dualpath plan --objective capacity` (one joint
// search over the P/D splits).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/run/summary_sections.hpp"  // RunEnd

namespace dualpath::study {

struct Probe {
  double aps = 0;
  bool meets = false;
  RunEnd ended_by = RunEnd::AllAgentsDone;
  std::string binds;
  double ttft_window_mean = 0, tpot_mean = 0, ttft_p50 = 0;
  double at = 0;      // when the stop rule ended the run, seconds
  double wall_s = 0;  // the child's wall time (perf.json; 0 if absent)
  // Prompt and generated tokens per second over the probe's run (summary.json results; -1 if absent: a
  // capacity.json written before the plan's cost existed), what a plan's cost per token divides by.
  double prompt_tokens_per_s = -1, generated_tokens_per_s = -1;
  // Bytes read from storage per second over the run (-1 if absent): `plan --target-aps` bounds the load a split's
  // storage NICs can carry with it (core/study/plan_target.cpp).
  double storage_read_per_s = -1;
  // Bytes read from storage per agent of the run (-1 if absent): exact when every agent finished, else the agents in
  // flight count whole with part of their reads, so it is low. `plan --ideal`'s read bound divides by it.
  double read_per_agent = -1;
  // Within the SLO until the run ended, but the rule (workload.stop = slo) saw no steady state of TTFT and load before
  // the arrivals stopped: a transient, which does not show that the rate holds, so the search counts it as a miss
  // (issue 62: 2,400-s probes of DS 660B 2P4D Basic "met" 0.584 APS, 22% above its SNIC bound).
  bool transient = false;
  // Under the TTFT-only reading (workload.stop = slo-ttft) every agent finished before the stop rule saw a steady
  // state: a pass that only bounds the capacity from below (that reading counts it as meeting).
  bool lower_bound() const { return meets && ended_by == RunEnd::AllAgentsDone; }
};

// The probe in `dir` (its summary.json; std::runtime_error when it is not a capacity probe's).
Probe read_probe(const std::string& dir, double aps, double tpot_limit);

// One line saying why a probe met or missed the SLO, with the measured values (not the limits); a transient probe
// says so, and, under the TTFT-only reading, a probe every agent finished before steady state is called a lower
// bound.
std::string verdict(const Probe& p, double ttft_limit, double tpot_limit);

// A probe as capacity.json records it ({"aps", "meets_slo", "transient", "ended_by", "ttft_window_mean_s",
// "ttft_p50_s", "tpot_mean_s", "binds"}), and back (nlohmann::json exceptions on a malformed entry).
nlohmann::json probe_json(const Probe& p);
Probe probe_from_json(const nlohmann::json& j);

// The APS text in probe folder names, probe runs and messages: analysis::load_text (kLoadDigits significant digits),
// the text the capacity search proposes its loads in.
std::string aps_text(double aps);

// The probe's folder under a search folder: DIR/probes/<policy>/aps=<A>.
std::string probe_dir(const std::string& dir, const std::string& policy, double aps);

// The probe an earlier run finished in its folder `dir` (the same search rerun or interrupted, another shard), or
// nothing; an unreadable one is removed, so that it runs again. What `capacity`, `plan` and `plan --target-aps`
// reuse.
std::optional<Probe> finished_probe(const std::string& dir, double aps, double tpot_limit);

// Makes the staging folder a probe of `dir` runs in (and dir's parent); publish_folder (core/study/run_folders.hpp) renames it
// onto `dir` once the probe succeeded, so a folder with a summary.json is always a finished probe.
std::string make_probe_staging(const std::string& dir);

struct ProbeRun {
  std::string scenario;
  std::vector<std::string> overlays, overrides;  // the user's and the caller's --set list, before the probe's own
  std::string policy;
  double ttft = 0, tpot = 0;  // SLO limits, seconds
  // The scenario's own rule when it is the TTFT-only reading (workload.stop = slo-ttft, from a file, an overlay or
  // --set); otherwise probes use slo.
  bool ttft_only = false;
};

// The --set list of a probe at `aps`: the run's own (r.overrides), then the probe's policy, stop rule, load and SLO.
std::vector<std::string> probe_overrides(const ProbeRun& r, double aps);

// Probes judged by workload.stop = slo need arrivals longer than the rule's look-back and window (150-s TTFT windows
// 30 min apart: 1,950 s), or every pass would be a transient: InputError naming `where` and what to set otherwise.
// The TTFT-only reading (the scenario's workload.stop = slo-ttft) and open-ended arrivals (duration 0) pass.
void check_probe_length(const Scenario& sc, const std::string& where);

// A duration option > 0 (e.g. --slo-ttft): InputError naming the flag with an example otherwise.
double positive_duration(const std::string& flag, const std::string& text);

}  // namespace dualpath::study
