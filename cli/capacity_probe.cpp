#include "cli/capacity_probe.hpp"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/config/input_error.hpp"
#include "core/config/units.hpp"
#include "core/run/summary_sections.hpp"

namespace dualpath::cli {

std::string verdict(const Probe& p, double ttft_limit, double tpot_limit) {
  std::ostringstream m;
  m << std::setprecision(3);
  if (p.ended_by == RunEnd::SloViolated)
    m << "misses the SLO: the TTFT window mean passed the " << ttft_limit << " s limit at t = " << std::setprecision(4)
      << p.at << std::setprecision(3) << " s (TTFT p50 " << p.ttft_p50 << " s, TPOT mean " << p.tpot_mean * 1e3
      << " ms)";
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
          {"ended_by", name_of(p.ended_by)},
          {"ttft_window_mean_s", p.ttft_window_mean},
          {"ttft_p50_s", p.ttft_p50},
          {"tpot_mean_s", p.tpot_mean},
          {"binds", p.binds}};
}

Probe probe_from_json(const nlohmann::json& j) {
  Probe p;
  p.aps = j.at("aps").get<double>();
  p.meets = j.at("meets_slo").get<bool>();
  p.ended_by = choice_value(kRunEnds, j.at("ended_by").get<std::string>());
  p.ttft_window_mean = j.at("ttft_window_mean_s").get<double>();
  p.ttft_p50 = j.at("ttft_p50_s").get<double>();
  p.tpot_mean = j.at("tpot_mean_s").get<double>();
  p.binds = j.at("binds").get<std::string>();
  return p;
}

std::string aps_text(double aps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", aps);
  return buf;
}

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
  p.meets = p.ended_by != RunEnd::SloViolated && p.tpot_mean <= tpot_limit;
  try {
    std::ifstream perf(dir + "/perf.json");
    if (perf) p.wall_s = nlohmann::json::parse(perf).value("wall_s", 0.0);
  } catch (const std::exception&) {
    p.wall_s = 0;  // the time is only for progress estimates
  }
  return p;
}

ChildJob probe_job(const ProbeRun& r, double aps, const std::string& out) {
  ChildJob j;
  j.args = {"run", r.scenario, "--quiet", "--out", out};
  for (const auto& f : r.overlays) j.args.insert(j.args.end(), {"--overlay", f});
  for (const auto& o : r.overrides) j.args.insert(j.args.end(), {"--set", o});
  const std::vector<std::string> probe_set = {"policy.name=" + r.policy, "workload.stop=slo",
                                              "workload.aps=" + aps_text(aps), "slo.ttft=" + aps_text(r.ttft) + " s",
                                              "slo.tpot=" + aps_text(r.tpot) + " s"};
  for (const std::string& o : probe_set) j.args.insert(j.args.end(), {"--set", o});
  j.log_path = out + "/run.log";
  return j;
}

double positive_duration(const std::string& flag, const std::string& text) {
  double v = 0;
  try {
    v = units::parse_duration(text);
  } catch (const units::UnitError& e) {
    throw InputError(flag + " " + text, e.what());
  }
  if (!(v > 0)) throw InputError(flag + " " + text, "expected a duration > 0, e.g. \"4 s\" or \"50 ms\"");
  return v;
}

}  // namespace dualpath::cli
