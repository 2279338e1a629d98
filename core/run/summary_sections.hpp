// summary.json's sections as types. Each section a tool reads back is written from its struct (to_json) and read
// into the same struct (the *_from_json readers), so the tools that read runs back (run's table, sweep, capacity,
// plan, hw run, claims) use fields, not key strings, and a renamed key breaks the build, not a tool.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/kv/pool_figures.hpp"
#include "core/config/choices.hpp"
#include "core/metrics/summary.hpp"

namespace dualpath {

// "links": mean utilisation per link class over the run, the mean SNIC read utilisation of prefill and decode
// nodes, and the balance max/avg of bytes read across SNICs (core/run/link_report.cpp computes it).
struct LinkFigures {
  std::map<std::string, double> by_class;  // links.csv class name -> mean utilisation (mean over its links)
  double pe_snic_read = 0, de_snic_read = 0;
  double snic_read_balance = 0;
  double of_class(const std::string& cls) const {
    const auto it = by_class.find(cls);
    return it == by_class.end() ? 0.0 : it->second;
  }
};
nlohmann::json to_json(const LinkFigures& l);
LinkFigures link_figures_from_json(const nlohmann::json& j);

// Why an online run under the stop rule ended: one of the rule's two verdicts (StopReason, paper §7.6), every agent
// done before either, or sim.time_limit.
enum class RunEnd : uint8_t { SloViolated, SteadyState, AllAgentsDone, TimeLimit };
inline constexpr ChoiceName<RunEnd> kRunEnds[] = {{RunEnd::SloViolated, "slo_violated"},
                                                  {RunEnd::SteadyState, "steady_state"},
                                                  {RunEnd::AllAgentsDone, "all_agents_done"},
                                                  {RunEnd::TimeLimit, "time_limit"}};
inline const char* name_of(RunEnd v) { return choice_name(kRunEnds, v); }

// "stop" (online runs with workload.stop = "slo"): which rule ended the run, when, and the TTFT window means.
struct StopFigures {
  RunEnd ended_by = RunEnd::AllAgentsDone;
  double at_s = 0;
  double ttft_window_mean_s = 0;
  std::optional<double> ttft_lookback_mean_s;  // none before the rule had a look-back window
  double window_s = 0, lookback_s = 0, tolerance = 0;
  // workload.stop = slo: the load test too (core/metrics/stop_rule.hpp): prompt tokens served per second and the
  // mean agents in flight over the last half of the look-back and the half before it, at the last steady-state
  // check while agents still arrived (none before one).
  bool load_flat = false;
  std::optional<double> load_recent_tokens_per_s, load_earlier_tokens_per_s;
  std::optional<double> agents_in_flight_recent, agents_in_flight_earlier;  // mean over the same halves
};
nlohmann::json to_json(const StopFigures& s);
StopFigures stop_figures_from_json(const nlohmann::json& j);

// "pool" (policies with a DRAM pool, docs/dram-pool.md): PoolFigures, core/kv/pool_figures.hpp.

// "working_set" (online runs; core/metrics/working_set.hpp): the KV working set by the law lambda*T*L/2 and as
// measured, in bytes, with the law's terms.
// mean_lifetime_s is the mean trajectory completion time T (arrival of round 0 to the end of the last round, over
// agents that finished), the figure §8.2's working set needs; kv_bytes_per_token the bytes the run loaded per token
// (with the indexer keys where the model counts them), absent (0) in summaries before issue 62.
struct WorkingSetFigures {
  int agents = 0;
  double agents_per_s = 0, mean_lifetime_s = 0, mean_final_tokens = 0;
  double law_bytes = 0, measured_mean_bytes = 0;
  double kv_bytes_per_token = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WorkingSetFigures, agents, agents_per_s, mean_lifetime_s,
                                                mean_final_tokens, law_bytes, measured_mean_bytes, kv_bytes_per_token)

// summary.json read back: the sections above, the results, and the few top-level figures tools use.
struct RunFile {
  std::string scenario, policy;
  bool complete = false;
  int64_t rounds_total = 0;
  RunSummary results;
  LinkFigures links;
  double kv_hit_rate = 0, kv_hit_rate_zero_service = 0, shared_hit_rate_zero_service = 0;  // "reuse"
  bool has_waits = false;        // the wait report ("waits") is there
  std::string ttft_binds;        // its binding resource of TTFT ("none": nothing waited; "" when not said)
  double ttft_binds_share = 0;   // ... and that resource's share of TTFT
  double kv_bytes_per_token = 0;  // config.derived
  std::optional<StopFigures> stop;
  std::optional<PoolFigures> pool;
  std::optional<WorkingSetFigures> working_set;
};
// Throws nlohmann::json::exception when a key is missing or has the wrong type.
RunFile run_file_from_json(const nlohmann::json& summary);
// Reads `path` (a summary.json); throws std::runtime_error naming the file when it cannot be read or parsed.
RunFile read_run_file(const std::string& path);

}  // namespace dualpath
