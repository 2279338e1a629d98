// End-of-run metrics computed from the requests' timelines: JCT, TTFT/TTST/TPOT percentiles, the TTFT breakdown,
// throughput and the bytes per transfer kind; plus the requests.csv writer. Link utilisation is added by the
// backend that measured it (sim/ or hw/).
#pragma once

#include <deque>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"
#include "core/vocab/request.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "core/metrics/sample_set.hpp"
#include "core/metrics/transfer_totals.hpp"

namespace dualpath {


struct RunSummary {
  int64_t rounds = 0;
  int64_t agents = 0;
  double jct = 0;            // last round's end - first arrival (offline: all agents' completion)
  double first_arrival = 0;
  // TTST is from arrival; second_token_gap from the first token to the second (handoff, DE H2D, joining the decode
  // batch, the first step): the reading of the paper's Table 3 TTST that fits its numbers (docs/fidelity.md).
  Percentiles second_token_gap;
  Percentiles ttft, ttst, tpot;  // TPOT = (done - second token) / (gen - 2): decode pace after the handoff
  // Mean TTFT breakdown (seconds): queue (until PE and DE are assigned), allocate (waiting for a read slot
  // and buffer space), read (storage -> buffer), prefill (waiting for and running the forward).
  double ttft_queue = 0, ttft_allocate = 0, ttft_read = 0, ttft_prefill = 0;
  double prompt_tokens = 0, generated_tokens = 0, hit_tokens = 0;
  double prompt_tokens_per_s = 0, generated_tokens_per_s = 0;
  double hit_rate = 0;
  double aps = 0;            // agents started per second (online)
  // The paper's online SLO (§7.6): TTFT <= 4 s and TPOT <= 50 ms; share of rounds within each and within both.
  double slo_ttft_limit = 4.0, slo_tpot_limit = 0.050;  // the SLO the fractions below are judged by
  double slo_ttft_ok = 0, slo_tpot_ok = 0, slo_both_ok = 0;
  TransferTotals bytes;
};

// The summary folded one request at a time, in id order, so that a long run need not keep its requests: what
// summarize() computes from the whole log, bit for bit (the percentiles' samples spill to disk, sample_set.hpp).
class SummaryAccumulator {
 public:
  explicit SummaryAccumulator(const SloSpec& slo = {}, size_t spill_at = SampleSet::kDefaultSpillAt);
  void add(const Request& r);
  RunSummary take(const TransferTotals& totals);  // once

 private:
  RunSummary s_;
  SampleSet ttft_, ttst_, tpot_, gap_;
  double first_ = 1e300, last_ = 0, q_ = 0, a_ = 0, rd_ = 0, pf_ = 0;
  std::vector<bool> agents_;  // agents with a finished round, by id
  double first_agent_start_ = 1e300, last_agent_start_ = 0;
  double ttft_ok_ = 0, tpot_ok_ = 0, both_ok_ = 0;
};

RunSummary summarize(const RequestLog& requests, const TransferTotals& totals, const SloSpec& slo = {});
nlohmann::json to_json(const RunSummary& s);
// The inverse, for tools that read a run back (sweep, claims, capacity, plan, --baseline): summary.json "results"
// as the struct that wrote it. Fields to_json does not write (first_arrival, the token totals) stay 0. Throws
// nlohmann::json::exception when a key is missing or has the wrong type.
RunSummary run_summary_from_json(const nlohmann::json& results);
// summary.json "reuse": the KV hit rate the run achieved beside the zero-service-time reference for its agents.
nlohmann::json reuse_json(const ZeroServiceReuse& reference, const RunSummary& s);
// requests.csv: its header line, then one row per request (id order).
void write_requests_csv_header(std::ostream& out);
class CsvNumbers;
void write_request_row(CsvNumbers& csv, const Request& r);
void write_requests_csv(std::ostream& out, const RequestLog& requests);

}  // namespace dualpath
