// sim.decode_chunk_end (issue 13's speed switch): with "steps" a decode chunk runs its decode_chunk_steps steps
// past the requests that finish inside it, and takes handoffs in at its next step boundary; a request's round
// still ends at its own step and a late handoff still decodes from the next step, as step-by-step decoding would.
#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {

struct ChunkRun {
  std::map<std::pair<int, int>, Request> rounds;  // by (agent, round)
  int decode_chunks = 0;                          // compute calls on the decode GPU
  double first_chunk_end = 0;
};

// One PE and one DE GPU. Agent 0 (B) decodes 40 tokens; agent 1 (A) starts 1 ms later, decodes 3 tokens and then
// has a second round with no think time, so its handoff comes while B's first chunk (16 steps) runs.
ChunkRun run(DecodeChunkEnd end) {
  Scenario s = test::small_scenario();
  s.policy.name = "basic";
  s.sim.decode_chunk_steps = 16;
  s.sim.decode_chunk_end = end;
  Agent b = agent(0, {{100, 40, 0}});
  Agent a = agent(1, {{100, 3, 0}, {50, 2, 0}});
  a.start = 1e-3;
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  Cluster c(s, {b, a}, be);
  c.start();
  be.run();
  EXPECT_TRUE(c.finished()) << c.stall_report();
  ChunkRun out;
  for (const Request& r : c.requests()) {
    EXPECT_EQ(r.decode.generated(), r.gen) << "agent " << r.agent << " round " << r.round;
    out.rounds[{r.agent, r.round}] = r;
  }
  const int de_gpu = 1;
  for (const auto& op : be.ops())
    if (op.kind == "compute" && op.a == de_gpu) {
      if (out.decode_chunks++ == 0) out.first_chunk_end = op.end;
    }
  return out;
}

}  // namespace

TEST(DecodeChunkEnd, StepsChunksTakeHandoffsInAtTheNextStepAndEndRoundsAtTheirStep) {
  const ChunkRun ff = run(DecodeChunkEnd::FirstFinish);
  const ChunkRun st = run(DecodeChunkEnd::Steps);
  const Request& b = st.rounds.at({0, 0});
  const double step = (b.t.done - b.t.second_token) / static_cast<double>(b.gen - 2);  // B decodes alone
  ASSERT_GT(step, 0);

  // First-finish: A joins only when B's 16-step chunk ends. Steps: A boards at the next step boundary after its
  // handoff, decodes its 2 steps inside the chunk, and its round ends there, before the chunk does.
  const Request& a_ff = ff.rounds.at({1, 0});
  const Request& a_st = st.rounds.at({1, 0});
  EXPECT_GE(a_ff.t.second_token, ff.first_chunk_end - 1e-12);
  EXPECT_LE(a_st.t.second_token - a_st.t.handoff_end, 2 * step + 1e-12);
  EXPECT_NEAR(a_st.t.done - a_st.t.second_token, step, 1e-3 * step);
  EXPECT_LT(a_st.t.done, st.first_chunk_end);
  EXPECT_LT(a_st.t.done, a_ff.t.done - 4 * step);

  // A's next round is issued at its last token (think time 0), in both modes.
  EXPECT_EQ(ff.rounds.at({1, 1}).t.arrival, a_ff.t.done);
  EXPECT_EQ(st.rounds.at({1, 1}).t.arrival, a_st.t.done);

  // Fewer, longer chunks: first-finish cuts a chunk at every finish.
  EXPECT_LT(st.decode_chunks, ff.decode_chunks);
}

// A chunk sized at its start counts a request that finishes inside it for the steps it is in the batch only. A
// (handed off second, so it boards B's first 16-step chunk at step k >= 1) is in the second chunk from its start:
// with 20 tokens it leaves after 3 + k of its 16 steps and adds that share of what it adds with 60 tokens.
TEST(DecodeChunkEnd, StepsChunkWorkCountsAFinishingRequestForItsOwnSteps) {
  auto work = [](DecodeChunkEnd end, int64_t gen_a) {
    Scenario s = test::small_scenario();
    s.policy.name = "basic";
    s.sim.decode_chunk_steps = 16;
    s.sim.decode_chunk_end = end;
    FakeBackend be(FakeRates{50e9, 50e9, 1});
    Agent a = agent(1, {{100, gen_a, 0}});
    a.start = 1e-3;
    Cluster c(s, {agent(0, {{100, 40, 0}}), a}, be);
    c.start();
    be.run();
    EXPECT_TRUE(c.finished()) << c.stall_report();
    std::vector<double> chunks;  // decode compute per chunk
    for (const auto& op : be.ops())
      if (op.kind == "compute" && op.a == 1) chunks.push_back(op.end - op.start);
    return chunks;
  };
  const auto alone = work(DecodeChunkEnd::Steps, 1);    // A has nothing to decode
  const auto short_a = work(DecodeChunkEnd::Steps, 20);  // A leaves inside the second chunk
  const auto long_a = work(DecodeChunkEnd::Steps, 60);   // A there for all of it
  ASSERT_GE(alone.size(), 2u);
  ASSERT_GE(short_a.size(), 2u);
  ASSERT_GE(long_a.size(), 2u);
  EXPECT_DOUBLE_EQ(short_a[0], alone[0]);  // A boarded the first chunk: not counted in its planned work
  EXPECT_GT(short_a[1], alone[1] * (1 + 1e-6));
  EXPECT_LT(short_a[1] - alone[1], 0.5 * (long_a[1] - alone[1]));  // (3 + k) / 16 of it, k small
}
