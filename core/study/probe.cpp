#include "core/study/probe.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/study/run_folders.hpp"
#include "core/analysis/capacity_search.hpp"
#include "core/config/input_error.hpp"
#include "core/config/units.hpp"
#include "core/metrics/stop_rule.hpp"
#include "core/run/summary_sections.hpp"

namespace dualpath::study {

std::string verdict(const Probe& p, double ttft_limit, double tpot_limit) {
  std::ostringstream m;
  m << std::setprecision(3);
  if (p.ended_by == RunEnd::SloViolated)
    m << "misses the SLO: the TTFT window mean passed the " << ttft_limit << " s limit at t = " << std::setprecision(4)
      << p.at << std::setprecision(3) << " s (TTFT p50 " << p.ttft_p50 << " s, TPOT mean " << p.tpot_mean * 1e3
      << " ms)";
  else if (p.transient)
    m << "transient: within the SLO (TTFT window mean " << p.ttft_window_mean << " s, TPOT mean " << p.tpot_mean * 1e3
      << " ms) but the arrivals ended before TTFT and the load reached a steady state (" << name_of(p.ended_by)
      << " at t = " << std::setprecision(4) << p.at << std::setprecision(3)
      << " s): it does not show the rate holds, so it counts as a miss (a longer workload.duration decides)";
  else if (!p.meets)
    m << "misses the SLO: TPOT mean " << p.tpot_mean * 1e3 << " ms over the " << tpot_limit * 1e3 << " ms limit ("
      << name_of(p.ended_by) << ", TTFT window mean " << p.ttft_window_mean << " s)";
  else
    m << "meets the SLO (" << name_of(p.ended_by) << ", TTFT window mean " << p.ttft_window_mean << " s, TPOT mean "
      << p.tpot_mean * 1e3 << " ms)"
      << (p.lower_bound() ? "; every agent finished before a steady state: a lower bound, not evidence that the rate "
                            "holds (longer workload.duration decides)"
                          : "");
  return m.str();
}

nlohmann::json probe_json(const Probe& p) {
  return {{"aps", p.aps},
          {"meets_slo", p.meets},
          {"transient", p.transient},
          {"ended_by", name_of(p.ended_by)},
          {"ttft_window_mean_s", p.ttft_window_mean},
          {"ttft_p50_s", p.ttft_p50},
          {"tpot_mean_s", p.tpot_mean},
          {"binds", p.binds},
          {"prompt_tokens_per_s", p.prompt_tokens_per_s},
          {"generated_tokens_per_s", p.generated_tokens_per_s},
          {"storage_read_per_s", p.storage_read_per_s},
          {"read_per_agent", p.read_per_agent}};
}

Probe probe_from_json(const nlohmann::json& j) {
  Probe p;
  p.aps = j.at("aps").get<double>();
  p.meets = j.at("meets_slo").get<bool>();
  p.transient = j.value("transient", false);  // capacity.json files before issue 62 lack it
  p.ended_by = choice_value(kRunEnds, j.at("ended_by").get<std::string>());
  p.ttft_window_mean = j.at("ttft_window_mean_s").get<double>();
  p.ttft_p50 = j.at("ttft_p50_s").get<double>();
  p.tpot_mean = j.at("tpot_mean_s").get<double>();
  p.binds = j.at("binds").get<std::string>();
  p.prompt_tokens_per_s = j.value("prompt_tokens_per_s", -1.0);  // absent before the plan's cost existed
  p.generated_tokens_per_s = j.value("generated_tokens_per_s", -1.0);
  p.storage_read_per_s = j.value("storage_read_per_s", -1.0);
  p.read_per_agent = j.value("read_per_agent", -1.0);
  return p;
}

std::string aps_text(double aps) { return analysis::load_text(aps); }

std::string probe_dir(const std::string& dir, const std::string& policy, double aps) {
  return dir + "/probes/" + policy + "/aps=" + aps_text(aps);
}

Probe read_probe(const std::string& dir, double aps, double tpot_limit) {
  const RunFile f = read_run_file(dir + "/summary.json");
  if (!f.stop || !f.has_waits)
    throw std::runtime_error(dir + "/summary.json: a capacity probe's summary has no stop rule or wait report");
  Probe p;
  p.aps = aps;
  p.ended_by = f.stop->ended_by;
  p.ttft_window_mean = f.stop->ttft_window_mean_s;
  p.at = f.stop->at_s;
  p.tpot_mean = f.results.tpot.mean;
  p.ttft_p50 = f.results.ttft.p50;
  p.binds = f.ttft_binds;
  p.prompt_tokens_per_s = f.results.prompt_tokens_per_s;
  p.generated_tokens_per_s = f.results.generated_tokens_per_s;
  p.storage_read_per_s = f.results.jct > 0 ? f.results.bytes.storage_read / f.results.jct : -1;
  p.read_per_agent = f.results.agents > 0 ? f.results.bytes.storage_read / static_cast<double>(f.results.agents) : -1;
  const bool within = p.ended_by != RunEnd::SloViolated && p.tpot_mean <= tpot_limit;
  // Under workload.stop = slo a pass needs the rule's steady state (TTFT and load); the TTFT-only reading
  // (slo-ttft) also counts a run every agent finished within the SLO, as it did before issue 62.
  p.transient = within && f.stop->load_flat && p.ended_by != RunEnd::SteadyState;
  p.meets = within && !p.transient;
  try {
    std::ifstream perf(dir + "/perf.json");
    if (perf) p.wall_s = nlohmann::json::parse(perf).value("wall_s", 0.0);
  } catch (const std::exception&) {
    p.wall_s = 0;  // the time is only for progress estimates
  }
  return p;
}

std::optional<Probe> finished_probe(const std::string& dir, double aps, double tpot_limit) {
  namespace fs = std::filesystem;
  if (!fs::exists(dir + "/summary.json")) return std::nullopt;
  try {
    return read_probe(dir, aps, tpot_limit);
  } catch (const std::exception&) {
    fs::remove_all(dir);  // unreadable: run it again
    return std::nullopt;
  }
}

std::string make_probe_staging(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(fs::path(dir).parent_path());
  const std::string staging = staging_folder(dir);
  fs::create_directories(staging);
  return staging;
}

std::vector<std::string> probe_overrides(const ProbeRun& r, double aps) {
  std::vector<std::string> sets = r.overrides;
  for (std::string o : {"policy.name=" + r.policy, std::string(r.ttft_only ? "workload.stop=slo-ttft" : "workload.stop=slo"),
                        "workload.aps=" + aps_text(aps), "slo.ttft=" + aps_text(r.ttft) + " s",
                        "slo.tpot=" + aps_text(r.tpot) + " s"})
    sets.push_back(std::move(o));
  return sets;
}

void check_probe_length(const Scenario& sc, const std::string& where) {
  const StopRuleSpec rule;
  const double needed = rule.lookback + rule.window;
  if (sc.workload.stop == StopMode::SloTtft || sc.workload.duration <= 0 || sc.workload.duration > needed) return;
  std::ostringstream m;
  m << "probes of " << sc.workload.duration << " s of arrivals cannot reach the stop rule's steady state, which compares "
    << rule.window << "-s TTFT windows " << rule.lookback / 60 << " min apart and needs the load flat as well: "
    << "every pass would be a transient (docs/capacity.md); expected workload.duration > " << needed
    << " s, e.g. --set workload.duration=7200s, or the TTFT-only reading --set workload.stop=slo-ttft";
  throw InputError(where + ": /workload/duration", m.str());
}

double positive_duration(const std::string& flag, const std::string& text) {
  double v = 0;
  try {
    v = units::parse_duration(text);
  } catch (const units::UnitError& e) {
    throw InputError(flag + " " + text, e.what());
  }
  if (!(v > 0)) throw InputError(flag + " " + text, "expected a duration > 0, e.g. \"4 s\" or \"50 ms\"");
  // A limit no run could miss is no limit: an SLO above a day would only push the searches' figures out of range.
  if (v > 86400) throw InputError(flag + " " + text, "expected a duration of at most a day (86400 s)");
  return v;
}

}  // namespace dualpath::study
