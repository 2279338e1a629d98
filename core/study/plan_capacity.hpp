// `dualpath plan --objective capacity`: the SLO capacity of every P/D split (of every variant) by one joint search
// (core/analysis/joint_capacity_search.hpp) whose probes (core/study/probe.hpp) a ProbeRunner runs,
// a round of at most --jobs at a time. Each split's probes go to SPLIT/probes/<policy>/aps=<A>/ (a capacity
// search's layout), each published by renaming its staging folder when it succeeds, so an interrupted plan keeps
// every finished probe and its rerun replays the same rounds, running only the probes that were not finished.
// When the search ends, each split's SPLIT/capacity.json records its bracket; a later plan (a rerun, or the merge
// of shards) takes those as given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/study/probe_runner.hpp"

namespace dualpath::study {

struct CapacityCandidate {
  std::string name;                // e.g. "2P2D" or "topology.snic_bw=200 Gbps 2P2D" (messages)
  std::string dir;                 // the split's folder
  std::string policy;
  std::vector<std::string> sets;   // every --set of its probes (the user's, the variant's, the split's)
  int group = 0;                   // its variant: candidates compete only within one
  double prior = 1;                // the §4.2 read rate its split sustains, bytes/s (seeds its neighbours)
};

struct CapacityPlanSpec {
  std::string scenario;
  std::vector<std::string> overlays;
  double ttft = 4, tpot = 0.05;    // SLO limits, seconds
  bool ttft_only = false;          // the scenario's workload.stop is slo-ttft (ProbeRun::ttft_only)
  double resolution = 0.02, start = 1;
  unsigned slots = 1;              // probes per round
  bool joint = true;               // false (a shard): every split searched on its own, to the resolution
  nlohmann::json identity;         // the plan's, recorded in each capacity.json
  ProbeRunner* runner = nullptr;   // runs the probes (the command line's children, or threads of this process)
};

struct CapacityResult {
  bool ok = false;                      // the search ran (every probe it needed ran)
  double capacity = 0;                  // highest rate that met the SLO below the lowest that did not
  std::optional<double> lowest_failing;
  std::string state;                    // "done", "dropped", "gave up"
  std::optional<size_t> dropped_below;  // the candidate whose capacity is at or above this one's lowest failing
  bool lower_bound = false;             // the probe at the capacity ended with every agent finished
  std::string binds;                    // the binding resource at the capacity
  double prompt_tokens_per_s = -1, generated_tokens_per_s = -1;  // the probe at the capacity's (-1: unknown)
  double read_per_agent = -1;                                     // the same probe's storage reads per agent, bytes
  size_t probes = 0, reused = 0;
};

// Runs (or takes from the folders) what the search needs; returns one result per candidate. Progress on stderr:
// each round's probes, each verdict with the bracket so far, an estimate of the time left.
std::vector<CapacityResult> search_capacities(const CapacityPlanSpec& spec, const std::vector<CapacityCandidate>& c);

}  // namespace dualpath::study
