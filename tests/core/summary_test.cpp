// End-of-run metrics from hand-made timelines: JCT, TTFT/TTST/TPOT definitions, the TTFT breakdown, SLO shares.
#include <gtest/gtest.h>

#include "core/metrics/summary.hpp"
#include "core/run/summary_sections.hpp"

using namespace dualpath;

namespace {
Request done_request(int64_t id, double arrival, double first, double second, double done, int64_t gen) {
  Request r;
  r.id = id, r.agent = static_cast<int>(id), r.round = 0, r.prompt = 1000, r.hit = 900, r.gen = gen;
  r.t.arrival = arrival, r.t.pe_assigned = arrival + 0.1, r.t.de_assigned = arrival + 0.2;
  r.t.read_start = arrival + 0.5, r.t.read_end = arrival + 0.7;
  r.t.first_token = first, r.t.second_token = second, r.t.done = done;
  return r;
}
}  // namespace

TEST(Summary, DefinitionsOnHandMadeTimelines) {
  RequestLog reqs;
  reqs.push_back(done_request(0, 0.0, 1.0, 1.5, 1.5 + 0.01 * 100, 102));  // TPOT 10 ms after the 2nd token
  reqs.push_back(done_request(1, 2.0, 7.0, 7.2, 7.2 + 0.08 * 10, 12));     // TTFT 5 s, TPOT 80 ms
  Request pending = done_request(2, 0, 1, 2, -1, 5);                          // unfinished: ignored
  reqs.push_back(pending);
  const RunSummary s = summarize(reqs, {});
  EXPECT_EQ(s.rounds, 2);
  EXPECT_DOUBLE_EQ(s.jct, 8.0);
  EXPECT_DOUBLE_EQ(s.ttft.max, 5.0);
  EXPECT_DOUBLE_EQ(s.ttft.p50, 1.0);
  EXPECT_NEAR(s.tpot.p50, 0.010, 1e-12);
  EXPECT_NEAR(s.tpot.max, 0.080, 1e-12);
  EXPECT_NEAR(s.ttst.p50, 1.5, 1e-12);
  EXPECT_NEAR(s.ttft_queue, 0.2, 1e-12);
  EXPECT_NEAR(s.ttft_allocate, 0.3, 1e-12);
  EXPECT_NEAR(s.ttft_read, 0.2, 1e-12);
  EXPECT_NEAR(s.ttft_prefill, (0.3 + 4.3) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(s.hit_rate, 0.9);
  EXPECT_DOUBLE_EQ(s.slo_ttft_ok, 0.5);
  EXPECT_DOUBLE_EQ(s.slo_tpot_ok, 0.5);
  EXPECT_DOUBLE_EQ(s.slo_both_ok, 0.5);
}

TEST(Summary, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const auto p = percentiles(v);
  EXPECT_DOUBLE_EQ(p.p50, 50);
  EXPECT_DOUBLE_EQ(p.p90, 90);
  EXPECT_DOUBLE_EQ(p.p99, 99);
  EXPECT_DOUBLE_EQ(p.max, 100);
  EXPECT_DOUBLE_EQ(p.mean, 50.5);
}

// The reader tools use is the exact inverse of what runs write: every key read back into its field, none left out.
TEST(Summary, ReadsBackWhatItWrites) {
  RequestLog reqs;
  reqs.push_back(done_request(0, 0.0, 1.0, 1.5, 2.5, 102));
  reqs.push_back(done_request(1, 2.0, 7.0, 7.2, 8.0, 12));
  TransferTotals b;
  b.storage_read = 1, b.storage_read_pe = 2, b.storage_read_de = 3, b.storage_write = 4, b.hit_loaded_to_pe = 5;
  b.h2d = 6, b.d2h = 7, b.pe_to_de = 8, b.de_to_pe = 9, b.collective = 10;
  const RunSummary s = summarize(reqs, b, SloSpec{3.0, 0.02});
  const nlohmann::json written = to_json(s);
  const RunSummary back = run_summary_from_json(written);
  EXPECT_EQ(to_json(back), written);
  EXPECT_DOUBLE_EQ(back.jct, s.jct);
  EXPECT_DOUBLE_EQ(back.ttft.p99, s.ttft.p99);
  EXPECT_DOUBLE_EQ(back.bytes.collective, 10);
  EXPECT_DOUBLE_EQ(back.slo_ttft_limit, 3.0);
  nlohmann::json missing = written;
  missing["bytes"].erase("d2h");
  EXPECT_THROW(run_summary_from_json(missing), nlohmann::json::exception);
}

// summary.json's "stop": every way an online run can end reads back as written, and a name no build writes is
// refused naming the key.
TEST(StopFigures, EveryRunEndRoundTripsAndAnUnknownOneIsRefused) {
  for (const auto& row : kRunEnds) {
    StopFigures s;
    s.ended_by = row.value;
    s.at_s = 12.5, s.ttft_window_mean_s = 3.25, s.window_s = 60, s.lookback_s = 300, s.tolerance = 0.05;
    const nlohmann::json j = to_json(s);
    EXPECT_EQ(j.at("ended_by"), row.name);
    const StopFigures back = stop_figures_from_json(j);
    EXPECT_EQ(back.ended_by, row.value);
    EXPECT_EQ(back.at_s, 12.5);
    EXPECT_FALSE(back.ttft_lookback_mean_s.has_value());
  }
  nlohmann::json j = to_json(StopFigures{});
  j["ended_by"] = "bored";
  try {
    stop_figures_from_json(j);
    FAIL() << "expected an error";
  } catch (const nlohmann::json::exception& e) {
    EXPECT_NE(std::string(e.what()).find("stop.ended_by"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bored"), std::string::npos) << e.what();
  }
}
