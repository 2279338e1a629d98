// The capacity study (docs/capacity.md): per policy, the highest agent arrival rate (APS) an online scenario serves
// within the SLO, by the search of core/analysis/capacity_search.hpp over probes (core/study/probe.hpp) that a
// ProbeRunner runs. What `dualpath capacity` and Python's `dualpath.capacity` both call, so their capacity.json are
// the same bytes.
//
// Probes go to OUT/probes/<policy>/aps=<A>/ and are reused when OUT/capacity.json's identity (scenario, overlays,
// --set list, SLO) matches, so a rerun, or one with a finer resolution, only runs what is new. Each probe runs in a
// staging folder renamed onto its own when it succeeds. A search whose failing end is a transient runs again with
// twice the arrivals (OUT/probes/<policy>/duration=<s>/), up to the longest probe allowed; a capacity still undecided
// there is reported as a lower bound, never as a rate the probes did not establish.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/command_values.hpp"
#include "core/config/scenario.hpp"
#include "core/study/probe.hpp"
#include "core/study/probe_runner.hpp"

namespace dualpath::study {

struct CapacityStudySpec {
  std::string scenario, out;                     // the scenario file; the study's folder
  std::vector<std::string> overlays, overrides;  // applied to every probe, before its own --set list
  std::vector<std::string> policies = {"basic", "dualpath"};
  double ttft = 4, tpot = 0.05;                  // SLO limits, seconds
  double resolution = 0.02;                      // relative width of the final bracket
  double max_probe_duration = 0;                 // longest arrivals a transient lengthens probes to (0: 4 x the scenario's)
  unsigned jobs = 0;                             // probes per round (0: the runner's slots)
  std::optional<Shard> shard;                    // run this slice of each probe set first, write no result
};

struct PolicyCapacity {
  std::string policy;
  double capacity = 0;                   // highest rate that met the SLO below the lowest that did not
  std::optional<double> lowest_failing;
  bool gave_up = false;                  // the search stopped without bracketing to the resolution
  bool lowest_failing_transient = false; // the bracket's failing end is a transient, not a measured miss
  bool undecided = false;                // every probe above the capacity was a transient at the longest arrivals
  int reused = 0;                        // probes an earlier study (or a shard) had finished
  double probe_duration = 0;             // the arrivals of the search's probes, seconds
  std::vector<Probe> probes;             // by rate
  std::string binds;                     // the binding resource at the probe at the capacity
  // Whether a probe ran at the capacity (none when nothing met the SLO): only then is `binds` a finding.
  bool at_capacity() const {
    for (const auto& p : probes)
      if (p.aps == capacity) return true;
    return false;
  }
};

struct CapacityStudy {
  std::string scenario_name, calibration_name, calibration_label;
  nlohmann::json identity, calibration;  // capacity.json's
  double ttft = 0, tpot = 0, resolution = 0, max_probe_duration = 0;
  std::vector<PolicyCapacity> policies;  // in the order asked
  bool probe_failed = false;             // a probe did not run to its end (the study stopped there)
  bool shard_only = false;               // a shard's slice: nothing written, nothing to print but the shard line
  std::string shard_text;                // "I/N"

  // capacity.json: {"identity", "calibration", "resolution", "policies": {name: {...}}}, with each policy's ratio to
  // the first policy's.
  nlohmann::json to_json() const;
  // The table `dualpath capacity` prints: the calibration, the SLO, one row per policy.
  void print(std::ostream& out) const;
  // InputError naming workload.duration when a capacity is undecided (it needs longer probes).
  void check_decided() const;
};

// capacity.json's identity: the scenario (absolute), overlays, --set list, SLO and longest probe, which a rerun into
// the same folder must match.
nlohmann::json capacity_identity(const CapacityStudySpec& spec);

// InputError naming --resolution unless it is a fraction in [analysis::kMinResolution, 1).
void check_resolution(double resolution);

// Every check the study makes before any probe runs (exit 2 territory): the SLO limits and resolution, each policy
// name under the scenario's settings, an online scenario with probes long enough for the stop rule, and a scenario
// every probe can run. Returns the scenario as loaded (with the overlays and --set list).
Scenario check_capacity_study(const CapacityStudySpec& spec);

// Runs the study: claims OUT (its identity), runs what the searches need through `runner`, and, unless it is a
// shard's slice, writes OUT/capacity.json. Progress on `log` (nullptr: quiet). InputError on bad input.
CapacityStudy run_capacity_study(const CapacityStudySpec& spec, ProbeRunner& runner, std::ostream* log);

}  // namespace dualpath::study
