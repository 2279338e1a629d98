#include "core/metrics/summary.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>

#include "core/metrics/csv_numbers.hpp"

namespace dualpath {

SummaryAccumulator::SummaryAccumulator(const SloSpec& slo, size_t spill_at)
    : ttft_(spill_at), ttst_(spill_at), tpot_(spill_at), gap_(spill_at) {
  s_.slo_ttft_limit = slo.ttft, s_.slo_tpot_limit = slo.tpot;  // paper §7.6: 4 s, 50 ms
}

void SummaryAccumulator::add(const Request& r) {
  if (r.t.done < 0) return;
  auto& s = s_;
  ++s.rounds;
  const auto agent = static_cast<size_t>(r.agent);
  if (agent >= agents_.size()) agents_.resize(agent + 1, false);
  if (!agents_[agent]) agents_[agent] = true, ++s.agents;
  if (r.round == 0) {
    first_agent_start_ = std::min(first_agent_start_, r.t.arrival);
    last_agent_start_ = std::max(last_agent_start_, r.t.arrival);
  }
  first_ = std::min(first_, r.t.arrival);
  last_ = std::max(last_, r.t.done);
  const double ttft = r.t.first_token - r.t.arrival;
  ttft_.add(ttft);
  const bool t_ok = ttft <= s.slo_ttft_limit;
  const bool p_ok = r.gen <= 2 || r.t.second_token < 0 ||
                    (r.t.done - r.t.second_token) / static_cast<double>(r.gen - 2) <= s.slo_tpot_limit;
  ttft_ok_ += t_ok, tpot_ok_ += p_ok, both_ok_ += (t_ok && p_ok);
  if (r.t.second_token >= 0) {
    ttst_.add(r.t.second_token - r.t.arrival);
    gap_.add(r.t.second_token - r.t.first_token);
  }
  // TPOT is the decode pace after the second token: TTST already covers the handoff and the first step.
  if (r.gen > 2 && r.t.second_token >= 0) tpot_.add((r.t.done - r.t.second_token) / static_cast<double>(r.gen - 2));
  q_ += r.t.scheduled() - r.t.arrival;
  a_ += r.t.read_start - r.t.scheduled();
  rd_ += r.t.read_end - r.t.read_start;
  pf_ += r.t.first_token - r.t.read_end;
  s.prompt_tokens += static_cast<double>(r.prompt);
  s.generated_tokens += static_cast<double>(r.gen);
  s.hit_tokens += static_cast<double>(r.hit);
}

RunSummary SummaryAccumulator::take(const TransferTotals& totals) {
  RunSummary s = s_;
  s.bytes = totals;
  if (s.rounds == 0) return s;
  const double n = static_cast<double>(s.rounds);
  s.first_arrival = first_;
  s.jct = last_ - first_;
  s.ttft = ttft_.take(), s.ttst = ttst_.take(), s.tpot = tpot_.take();
  s.second_token_gap = gap_.take();
  s.ttft_queue = q_ / n, s.ttft_allocate = a_ / n, s.ttft_read = rd_ / n, s.ttft_prefill = pf_ / n;
  s.prompt_tokens_per_s = s.jct > 0 ? s.prompt_tokens / s.jct : 0;
  s.generated_tokens_per_s = s.jct > 0 ? s.generated_tokens / s.jct : 0;
  s.hit_rate = s.prompt_tokens > 0 ? s.hit_tokens / s.prompt_tokens : 0;
  s.slo_ttft_ok = ttft_ok_ / n, s.slo_tpot_ok = tpot_ok_ / n, s.slo_both_ok = both_ok_ / n;
  const double span = last_agent_start_ - first_agent_start_;
  s.aps = span > 0 ? static_cast<double>(s.agents - 1) / span : 0;
  return s;
}

RunSummary summarize(const RequestLog& requests, const TransferTotals& totals, const SloSpec& slo) {
  SummaryAccumulator acc(slo);
  for (const auto& r : requests) acc.add(r);
  return acc.take(totals);
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

void write_requests_csv_header(std::ostream& out) {
  out << "id,agent,round,prompt,hit,fresh,gen,pe,de,read_side,arrival,pe_assigned,de_assigned,read_start,read_end,"
         "prefill_start,first_token,handoff_start,handoff_end,second_token,done\n";
}

void write_request_row(CsvNumbers& csv, const Request& r) {
  const auto& t = r.t;
  for (int64_t v : {r.id, int64_t{r.agent}, int64_t{r.round}, r.prompt, r.hit, r.fresh, r.gen, int64_t{r.pe},
                    int64_t{r.de}})
    csv.integer(v).ch(',');
  csv.text(r.read.side() == ReadSide::Unset ? "pe" : side_name(r.read.side()));
  for (double v : {t.arrival, t.pe_assigned, t.de_assigned, t.read_start, t.read_end, t.prefill_start, t.first_token,
                   t.handoff_start, t.handoff_end, t.second_token, t.done})
    csv.ch(',').general(v, 9);  // %.9g: what the ostream with setprecision(9) wrote before
  csv.end_line();
}

void write_requests_csv(std::ostream& out, const RequestLog& requests) {
  write_requests_csv_header(out);
  CsvNumbers csv(out);
  for (const auto& r : requests) write_request_row(csv, r);
}

}  // namespace dualpath
