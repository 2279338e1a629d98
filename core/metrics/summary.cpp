#include "core/metrics/summary.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>

#include "core/metrics/csv_numbers.hpp"

namespace dualpath {

Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  p.count = v.size();
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto rank = [&](double q) {
    const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
  };
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  p.p50 = rank(0.50), p.p90 = rank(0.90), p.p99 = rank(0.99), p.max = v.back();
  return p;
}

RunSummary summarize(const RequestLog& requests, const TransferTotals& totals, const SloSpec& slo) {
  RunSummary s;
  s.bytes = totals;
  s.slo_ttft_limit = slo.ttft, s.slo_tpot_limit = slo.tpot;
  std::vector<double> ttft, ttst, tpot, gap;
  double first = 1e300, last = 0, q = 0, a = 0, rd = 0, pf = 0;
  std::set<int> agents;
  double first_agent_start = 1e300, last_agent_start = 0;
  const double kSloTtft = slo.ttft, kSloTpot = slo.tpot;  // paper §7.6: 4 s, 50 ms
  double ttft_ok = 0, tpot_ok = 0, both_ok = 0;
  for (const auto& r : requests) {
    if (r.t.done < 0) continue;
    ++s.rounds;
    agents.insert(r.agent);
    if (r.round == 0) {
      first_agent_start = std::min(first_agent_start, r.t.arrival);
      last_agent_start = std::max(last_agent_start, r.t.arrival);
    }
    first = std::min(first, r.t.arrival);
    last = std::max(last, r.t.done);
    ttft.push_back(r.t.first_token - r.t.arrival);
    const bool t_ok = ttft.back() <= kSloTtft;
    const bool p_ok = r.gen <= 2 || r.t.second_token < 0 ||
                      (r.t.done - r.t.second_token) / static_cast<double>(r.gen - 2) <= kSloTpot;
    ttft_ok += t_ok, tpot_ok += p_ok, both_ok += (t_ok && p_ok);
    if (r.t.second_token >= 0) {
      ttst.push_back(r.t.second_token - r.t.arrival);
      gap.push_back(r.t.second_token - r.t.first_token);
    }
    // TPOT is the decode pace after the second token: TTST already covers the handoff and the first step.
    if (r.gen > 2 && r.t.second_token >= 0)
      tpot.push_back((r.t.done - r.t.second_token) / static_cast<double>(r.gen - 2));
    q += r.t.scheduled() - r.t.arrival;
    a += r.t.read_start - r.t.scheduled();
    rd += r.t.read_end - r.t.read_start;
    pf += r.t.first_token - r.t.read_end;
    s.prompt_tokens += static_cast<double>(r.prompt);
    s.generated_tokens += static_cast<double>(r.gen);
    s.hit_tokens += static_cast<double>(r.hit);
  }
  if (s.rounds == 0) return s;
  const double n = static_cast<double>(s.rounds);
  s.agents = static_cast<int64_t>(agents.size());
  s.first_arrival = first;
  s.jct = last - first;
  s.ttft = percentiles(ttft), s.ttst = percentiles(ttst), s.tpot = percentiles(tpot);
  s.second_token_gap = percentiles(gap);
  s.ttft_queue = q / n, s.ttft_allocate = a / n, s.ttft_read = rd / n, s.ttft_prefill = pf / n;
  s.prompt_tokens_per_s = s.jct > 0 ? s.prompt_tokens / s.jct : 0;
  s.generated_tokens_per_s = s.jct > 0 ? s.generated_tokens / s.jct : 0;
  s.hit_rate = s.prompt_tokens > 0 ? s.hit_tokens / s.prompt_tokens : 0;
  s.slo_ttft_ok = ttft_ok / n, s.slo_tpot_ok = tpot_ok / n, s.slo_both_ok = both_ok / n;
  const double span = last_agent_start - first_agent_start;
  s.aps = span > 0 ? static_cast<double>(s.agents - 1) / span : 0;
  return s;
}

namespace {
nlohmann::json pct(const Percentiles& p) {
  return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}, {"count", p.count}};
}
}  // namespace

namespace {
Percentiles pct_from(const nlohmann::json& j) {
  Percentiles p;
  p.mean = j.at("mean").get<double>(), p.p50 = j.at("p50").get<double>(), p.p90 = j.at("p90").get<double>();
  p.p99 = j.at("p99").get<double>(), p.max = j.at("max").get<double>(), p.count = j.at("count").get<size_t>();
  return p;
}
}  // namespace

RunSummary run_summary_from_json(const nlohmann::json& r) {
  RunSummary s;
  s.rounds = r.at("rounds").get<int64_t>();
  s.agents = r.at("agents").get<int64_t>();
  s.jct = r.at("jct_s").get<double>();
  s.ttft = pct_from(r.at("ttft_s")), s.ttst = pct_from(r.at("ttst_s")), s.tpot = pct_from(r.at("tpot_s"));
  if (r.contains("second_token_gap_s")) s.second_token_gap = pct_from(r.at("second_token_gap_s"));  // newer runs
  const auto& br = r.at("ttft_breakdown_s");
  s.ttft_queue = br.at("queue").get<double>(), s.ttft_allocate = br.at("allocate").get<double>();
  s.ttft_read = br.at("read").get<double>(), s.ttft_prefill = br.at("prefill").get<double>();
  s.prompt_tokens_per_s = r.at("prompt_tokens_per_s").get<double>();
  s.generated_tokens_per_s = r.at("generated_tokens_per_s").get<double>();
  s.hit_rate = r.at("kv_hit_rate").get<double>();
  s.aps = r.at("aps").get<double>();
  const auto& slo = r.at("slo");
  s.slo_ttft_limit = slo.at("ttft_limit_s").get<double>(), s.slo_tpot_limit = slo.at("tpot_limit_s").get<double>();
  s.slo_ttft_ok = slo.at("ttft_ok_fraction").get<double>(), s.slo_tpot_ok = slo.at("tpot_ok_fraction").get<double>();
  s.slo_both_ok = slo.at("both_ok_fraction").get<double>();
  const auto& b = r.at("bytes");
  auto& t = s.bytes;
  t.storage_read = b.at("storage_read").get<double>();
  t.storage_read_pe = b.at("storage_read_pe_snic").get<double>();
  t.storage_read_de = b.at("storage_read_de_snic").get<double>();
  t.storage_write = b.at("storage_write").get<double>();
  t.hit_loaded_to_pe = b.at("hit_loaded_to_pe_hbm").get<double>();
  t.h2d = b.at("h2d").get<double>(), t.d2h = b.at("d2h").get<double>();
  t.pe_to_de = b.at("pe_to_de").get<double>(), t.de_to_pe = b.at("de_to_pe").get<double>();
  t.collective = b.at("collective").get<double>();
  return s;
}

nlohmann::json to_json(const RunSummary& s) {
  const auto& b = s.bytes;
  return {
      {"rounds", s.rounds},
      {"agents", s.agents},
      {"jct_s", s.jct},
      {"ttft_s", pct(s.ttft)},
      {"ttst_s", pct(s.ttst)},
      {"second_token_gap_s", pct(s.second_token_gap)},
      {"tpot_s", pct(s.tpot)},
      {"ttft_breakdown_s",
       {{"queue", s.ttft_queue}, {"allocate", s.ttft_allocate}, {"read", s.ttft_read}, {"prefill", s.ttft_prefill}}},
      {"prompt_tokens_per_s", s.prompt_tokens_per_s},
      {"generated_tokens_per_s", s.generated_tokens_per_s},
      {"kv_hit_rate", s.hit_rate},
      {"aps", s.aps},
      {"slo",
       {{"ttft_limit_s", s.slo_ttft_limit},
        {"tpot_limit_s", s.slo_tpot_limit},
        {"ttft_ok_fraction", s.slo_ttft_ok},
        {"tpot_ok_fraction", s.slo_tpot_ok},
        {"both_ok_fraction", s.slo_both_ok}}},
      {"bytes",
       {{"storage_read", b.storage_read},
        {"storage_read_pe_snic", b.storage_read_pe},
        {"storage_read_de_snic", b.storage_read_de},
        {"storage_write", b.storage_write},
        {"hit_loaded_to_pe_hbm", b.hit_loaded_to_pe},
        {"h2d", b.h2d},
        {"d2h", b.d2h},
        {"pe_to_de", b.pe_to_de},
        {"de_to_pe", b.de_to_pe},
        {"collective", b.collective}}},
  };
}

nlohmann::json reuse_json(const ZeroServiceReuse& reference, const RunSummary& s) {
  const double prompt = reference.prompt_tokens;
  return {{"kv_hit_rate", s.hit_rate},
          {"kv_hit_rate_zero_service", reference.hit_rate()},
          {"shared_hit_rate_zero_service", prompt > 0 ? reference.shared_hit_tokens / prompt : 0.0}};
}

void write_requests_csv(std::ostream& out, const RequestLog& requests) {
  out << "id,agent,round,prompt,hit,fresh,gen,pe,de,read_side,arrival,pe_assigned,de_assigned,read_start,read_end,"
         "prefill_start,first_token,handoff_start,handoff_end,second_token,done\n";
  CsvNumbers csv(out);
  for (const auto& r : requests) {
    const auto& t = r.t;
    for (int64_t v : {r.id, int64_t{r.agent}, int64_t{r.round}, r.prompt, r.hit, r.fresh, r.gen, int64_t{r.pe},
                      int64_t{r.de}})
      csv.integer(v).ch(',');
    csv.text(r.side == ReadSide::Unset ? "pe" : side_name(r.side));
    for (double v : {t.arrival, t.pe_assigned, t.de_assigned, t.read_start, t.read_end, t.prefill_start,
                     t.first_token, t.handoff_start, t.handoff_end, t.second_token, t.done})
      csv.ch(',').general(v, 9);  // %.9g: what the ostream with setprecision(9) wrote before
    csv.end_line();
  }
}

}  // namespace dualpath
