// The Cluster's request sink (core/vocab/request_sink.hpp): every request is handed over exactly once, in id order,
// only once settled, and a run that frees what it handed over gives the same requests and summary as one that
// keeps them all (the long-run memory bound of issue 46 changes no result).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/metrics/summary.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {
std::vector<Agent> many_agents(int n) {
  std::vector<Agent> out;
  for (int i = 0; i < n; ++i) {
    std::vector<Round> rounds;
    rounds.push_back({1500 + 200 * (i % 7), 1 + i % 3, 0});  // first rounds of one to three tokens
    for (int k = 0; k < 4; ++k) rounds.push_back({100 + 37 * ((i + k) % 5), 1 + (i * 13 + k * 7) % 40, 0});
    out.push_back(test::agent(i, rounds));
  }
  return out;
}

struct Recorder final : RequestSink {
  std::vector<Request> got;
  const Cluster* cluster = nullptr;
  bool all_settled = true;
  void settled(const Request& r) override {
    got.push_back(r);
    // Handed over only when finished (its prompt persisted where the round ended at its first token) or lost.
    if (!cluster->finished() && r.t.done < 0 && !r.lost) all_settled = false;
  }
};

Scenario scenario(const std::string& param) {
  Scenario s = test::small_scenario(2, 2, 2);
  s.policy.name = param.substr(0, param.find('+'));
  if (param.find("+handoff") != std::string::npos) s.policy.de_hbm = DeHbmAt::Handoff;
  // Chunks that run past a finish: a round that ends inside one stays in its batch until the chunk ends.
  if (param.find("+steps") != std::string::npos)
    s.sim.decode_chunk_end = DecodeChunkEnd::Steps, s.sim.decode_chunk_steps = 8;
  s.topology.dram_buffer_bytes = 2e9;
  return s;
}
}  // namespace

class RequestSinkRun : public ::testing::TestWithParam<const char*> {};

TEST_P(RequestSinkRun, FreeingWhatWasHandedOverChangesNoResult) {
  const Scenario s = scenario(GetParam());
  const int agents = 700;  // 3,500 requests: more than three chunks of the log
  FakeBackend keep_be(FakeRates{50e9, 50e9, 2});
  Cluster keep(s, many_agents(agents), keep_be);
  keep.start();
  keep_be.run();
  ASSERT_TRUE(keep.finished()) << keep.stall_report();

  FakeBackend free_be(FakeRates{50e9, 50e9, 2});
  Cluster freeing(s, many_agents(agents), free_be);
  Recorder rec;
  rec.cluster = &freeing;
  freeing.set_request_sink(&rec, /*free_settled=*/true);
  freeing.start();
  free_be.run();
  ASSERT_TRUE(freeing.finished()) << freeing.stall_report();
  const size_t before_rest = rec.got.size();
  freeing.hand_over_rest();
  EXPECT_EQ(rec.got.size(), before_rest) << "a finished run leaves nothing unsettled";
  EXPECT_TRUE(rec.all_settled);

  ASSERT_EQ(rec.got.size(), keep.requests().size());
  for (size_t i = 0; i < rec.got.size(); ++i) {
    const Request& a = rec.got[i];
    const Request& b = keep.requests()[i];
    ASSERT_EQ(a.id, static_cast<int64_t>(i)) << "handed over out of order";
    EXPECT_EQ(a.t.done, b.t.done) << i;
    EXPECT_EQ(a.t.first_token, b.t.first_token) << i;
    EXPECT_EQ(a.t.handoff_end, b.t.handoff_end) << i;
    EXPECT_EQ(a.read.side(), b.read.side()) << i;
  }
  // The front of the log was given back; what is left is a chunk or two behind the end.
  EXPECT_FALSE(freeing.requests().held(0));
  EXPECT_TRUE(freeing.requests().held(freeing.requests().size() - 1));
  EXPECT_THROW((void)freeing.requests()[0], std::logic_error);

  SummaryAccumulator acc(s.slo);
  for (const auto& r : rec.got) acc.add(r);
  const RunSummary a = acc.take(freeing.totals());
  const RunSummary b = summarize(keep.requests(), keep.totals(), s.slo);
  EXPECT_EQ(to_json(a).dump(), to_json(b).dump());
}

INSTANTIATE_TEST_SUITE_P(Policies, RequestSinkRun,
                         ::testing::Values("dualpath", "basic", "oracle", "dualpath-split", "dualpath+handoff",
                                           "dram-pool", "dualpath+steps", "basic+steps"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '+' || ch == '-') ch = '_';
                           return n;
                         });
