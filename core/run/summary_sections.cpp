#include "core/run/summary_sections.hpp"

#include <fstream>
#include <stdexcept>

namespace dualpath {

nlohmann::json to_json(const LinkFigures& l) {
  nlohmann::json util = nlohmann::json::object();
  for (const auto& [cls, v] : l.by_class) util[cls] = v;
  return {{"mean_utilisation_by_class", util},
          {"pe_snic_read_utilisation", l.pe_snic_read},
          {"de_snic_read_utilisation", l.de_snic_read},
          {"snic_read_balance_max_over_avg", l.snic_read_balance}};
}

LinkFigures link_figures_from_json(const nlohmann::json& j) {
  LinkFigures l;
  for (const auto& [cls, v] : j.at("mean_utilisation_by_class").items()) l.by_class[cls] = v.get<double>();
  l.pe_snic_read = j.at("pe_snic_read_utilisation").get<double>();
  l.de_snic_read = j.at("de_snic_read_utilisation").get<double>();
  l.snic_read_balance = j.at("snic_read_balance_max_over_avg").get<double>();
  return l;
}

nlohmann::json to_json(const StopFigures& s) {
  const auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"rule", s.load_flat ? "slo" : "slo-ttft"},
          {"ended_by", name_of(s.ended_by)},
          {"at_s", s.at_s},
          {"ttft_window_mean_s", s.ttft_window_mean_s},
          {"ttft_lookback_mean_s", opt(s.ttft_lookback_mean_s)},
          {"window_s", s.window_s},
          {"lookback_s", s.lookback_s},
          {"tolerance", s.tolerance},
          {"load_recent_tokens_per_s", opt(s.load_recent_tokens_per_s)},
          {"load_earlier_tokens_per_s", opt(s.load_earlier_tokens_per_s)},
          {"agents_in_flight_recent", opt(s.agents_in_flight_recent)},
          {"agents_in_flight_earlier", opt(s.agents_in_flight_earlier)}};
}

StopFigures stop_figures_from_json(const nlohmann::json& j) {
  StopFigures s;
  const auto ended_by = j.at("ended_by").get<std::string>();
  try {
    s.ended_by = choice_value(kRunEnds, ended_by);
  } catch (const std::invalid_argument&) {
    std::string names;
    for (const auto& n : choice_names(kRunEnds)) names += (names.empty() ? "" : ", ") + n;
    throw nlohmann::json::type_error::create(
        302, "stop.ended_by: expected one of " + names + ", found \"" + ended_by + "\"", &j);
  }
  s.at_s = j.at("at_s").get<double>();
  s.ttft_window_mean_s = j.at("ttft_window_mean_s").get<double>();
  if (!j.at("ttft_lookback_mean_s").is_null()) s.ttft_lookback_mean_s = j.at("ttft_lookback_mean_s").get<double>();
  s.window_s = j.at("window_s").get<double>();
  s.lookback_s = j.at("lookback_s").get<double>();
  s.tolerance = j.at("tolerance").get<double>();
  s.load_flat = j.value("rule", std::string("slo")) == "slo";
  for (auto [key, field] : {std::pair{"load_recent_tokens_per_s", &s.load_recent_tokens_per_s},
                            std::pair{"load_earlier_tokens_per_s", &s.load_earlier_tokens_per_s},
                            std::pair{"agents_in_flight_recent", &s.agents_in_flight_recent},
                            std::pair{"agents_in_flight_earlier", &s.agents_in_flight_earlier}})
    if (j.contains(key) && !j.at(key).is_null()) *field = j.at(key).get<double>();  // older summaries lack them
  return s;
}

RunFile run_file_from_json(const nlohmann::json& s) {
  RunFile f;
  f.scenario = s.at("scenario").get<std::string>();
  f.policy = s.at("policy").get<std::string>();
  f.complete = s.at("complete").get<bool>();
  f.rounds_total = s.at("rounds_total").get<int64_t>();
  f.results = run_summary_from_json(s.at("results"));
  f.links = link_figures_from_json(s.at("links"));
  const auto& reuse = s.at("reuse");
  f.kv_hit_rate = reuse.at("kv_hit_rate").get<double>();
  f.kv_hit_rate_zero_service = reuse.at("kv_hit_rate_zero_service").get<double>();
  f.shared_hit_rate_zero_service = reuse.at("shared_hit_rate_zero_service").get<double>();
  if (s.contains("waits")) {
    f.has_waits = true;
    const auto& t = s.at("waits").at("ttft");
    f.ttft_binds = t.value("binds", "");
    if (f.ttft_binds != "none" && t.contains("by_resource") && t.at("by_resource").contains(f.ttft_binds))
      f.ttft_binds_share = t.at("by_resource").at(f.ttft_binds).get<double>();
  }
  f.kv_bytes_per_token = s.at("config").at("derived").at("kv_bytes_per_token").get<double>();
  if (s.contains("stop")) f.stop = stop_figures_from_json(s.at("stop"));
  if (s.contains("pool")) f.pool = s.at("pool").get<PoolFigures>();
  if (s.contains("working_set")) f.working_set = s.at("working_set").get<WorkingSetFigures>();
  return f;
}

RunFile read_run_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  try {
    return run_file_from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not a run's summary.json: " + e.what());
  }
}

}  // namespace dualpath
