// Content-addressed prefix reuse (issue 18): blocks a trajectory shares with its parent live in one stream, are
// written once, and are hits for every agent that names them; the zero-service reference counts them in closed form.
#include <gtest/gtest.h>

#include <set>

#include "core/cluster/cluster.hpp"
#include "core/kv/block_index.hpp"
#include "core/kv/zero_service_reuse.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {

Agent replay(int id, int trajectory, std::vector<Round> rounds, std::vector<SharedPrefix> shares = {}, double start = 0) {
  Agent a = agent(id, std::move(rounds));
  a.trajectory = trajectory;
  a.shares = std::move(shares);
  a.start = start;
  return a;
}

}  // namespace

// Agent 1 replays trajectory 1, whose first 200 tokens are trajectory 0's (agent 0's content): with 64-token
// blocks, blocks 0-2 (tokens 0-191) live in stream 0; block 3 straddles the end of the shared part and is its own.
TEST(BlockIndex, SharedBlocksLiveInTheParentsStream) {
  const std::vector<Agent> agents{replay(0, 0, {{500, 1, 0}}), replay(1, 1, {{500, 1, 0}}, {{0, 200}})};
  BlockIndex idx(agents, 64);
  EXPECT_EQ(idx.place_of(1, 0).stream, 0);
  EXPECT_EQ(idx.place_of(1, 2).stream, 0);
  EXPECT_EQ(idx.place_of(1, 3).stream, 1);
  EXPECT_EQ(idx.place_of(0, 2).stream, 0);
  const BlockRanges r = idx.ranges(1, 1, 6);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].stream, 0);
  EXPECT_EQ(r[0].first, 1);
  EXPECT_EQ(r[0].last, 3);
  EXPECT_EQ(r[1].stream, 1);
  EXPECT_EQ(r[1].first, 3);
  EXPECT_EQ(r[1].last, 6);
  EXPECT_EQ(idx.streams(), 2);
}

// What one agent persists is a hit for the other, and a block is claimed for writing once.
TEST(BlockIndex, ClaimsEachSharedBlockOnceAndPersistsForAll) {
  const std::vector<Agent> agents{replay(0, 0, {{500, 1, 0}}), replay(1, 1, {{500, 1, 0}}, {{0, 256}})};
  BlockIndex idx(agents, 64);
  const BlockRanges first = idx.claim(1, 0, 7);  // agent 1 writes its prompt first: 4 shared blocks + 3 own
  EXPECT_EQ(BlockIndex::block_count(first), 7);
  EXPECT_EQ(idx.persisted_prefix(0), 0);          // claimed is not persisted
  const BlockRanges second = idx.claim(0, 0, 7);  // agent 0's blocks 0-3 are claimed already
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].stream, 0);
  EXPECT_EQ(second[0].first, 4);
  EXPECT_EQ(second[0].last, 7);
  idx.persist(first);
  EXPECT_EQ(idx.persisted_prefix(0), 4 * 64);  // agent 0 now hits the four blocks agent 1 wrote
  EXPECT_EQ(idx.persisted_prefix(1), 7 * 64);
  idx.persist(second);
  EXPECT_EQ(idx.persisted_prefix(0), 7 * 64);
}

// A grandparent's blocks: agent 2 shares 300 tokens with trajectory 1, which shares 130 with trajectory 0; no agent
// replays trajectory 1, so its content gets a stream of its own (agents + ...), and block 1 of every agent is
// stream 0's.
TEST(BlockIndex, ChainsOfParentsResolveToTheDeepestHolder) {
  const std::vector<Agent> agents{replay(0, 0, {{400, 1, 0}}), replay(1, 2, {{400, 1, 0}}, {{1, 300}, {0, 130}})};
  BlockIndex idx(agents, 64);
  EXPECT_EQ(idx.place_of(1, 1).stream, 0);  // tokens 64-127 < 130: trajectory 0's
  const int t1 = idx.place_of(1, 2).stream;  // tokens 128-191: trajectory 1's (130 < 192 <= 300)
  EXPECT_GE(t1, 2);
  EXPECT_EQ(idx.place_of(1, 4).stream, 1);  // tokens 256-319 straddle 300: the agent's own
  EXPECT_EQ(idx.streams(), 3);
}

// Zero-service reference, closed form: agent 0 (t = 0) computes a 1,000-token prompt and 100 generated tokens;
// agent 1 (t = 1) shares its first 640 tokens and appends 60 more (prompt 700). Hits: agent 0 round 0: 0;
// agent 1 round 0: 640 (10 blocks); agent 1 round 1 (prompt 700 + 20 + 50 = 770): its persisted prefix,
// aligned(720) = 704.
TEST(ZeroServiceReuse, CountsSharedPrefixesInClosedForm) {
  const std::vector<Agent> agents{replay(0, 0, {{1000, 100, 0}}),
                                  replay(1, 1, {{700, 20, 0}, {50, 5, 0}}, {{0, 640}}, 1.0)};
  const ZeroServiceReuse z = zero_service_reuse(agents, 64);
  EXPECT_DOUBLE_EQ(z.prompt_tokens, 1000 + 700 + 770);
  EXPECT_DOUBLE_EQ(z.hit_tokens, 640 + 704);
  EXPECT_DOUBLE_EQ(z.shared_hit_tokens, 640 + 640);
  // Without the parent link, agent 1's first round misses entirely.
  const std::vector<Agent> alone{agents[0], replay(1, 1, {{700, 20, 0}, {50, 5, 0}}, {}, 1.0)};
  EXPECT_DOUBLE_EQ(zero_service_reuse(alone, 64).hit_tokens, 704);
}

// End to end on the core with a fake backend: agent 1 arrives after agent 0's round is stored; its first prompt
// reads the 10 shared blocks from agent 0's stream, writes only its own new blocks, and no block is written twice
// or read before it was written.
TEST(ClusterSharedPrefix, SharedBlocksAreHitsReadFromTheHolderAndWrittenOnce) {
  for (const char* policy : {"basic", "dualpath"}) {
    Scenario s = test::small_scenario();
    s.policy.name = policy;
    FakeBackend be(FakeRates{50e9, 50e9, 1});
    Cluster c(s, {replay(0, 0, {{1000, 100, 0}}), replay(1, 1, {{700, 20, 0}}, {{0, 640}}, 50.0)}, be);
    c.start();
    be.run();
    ASSERT_TRUE(c.finished()) << c.stall_report();
    const Request& child = c.requests().at(1);
    ASSERT_EQ(child.agent, 1);
    EXPECT_EQ(child.hit, 640) << policy;
    EXPECT_EQ(be.unpersisted_reads, 0) << policy;
    EXPECT_EQ(be.rewritten_blocks, 0) << policy;
    // Agent 0: blocks 0-17 (1,100 tokens); agent 1: its own blocks 10-11 (720 tokens) in stream 1.
    EXPECT_EQ(be.persisted[0].size(), 17u) << policy;
    EXPECT_EQ(be.persisted[1], (std::set<int64_t>{10})) << policy;
    bool read_parent = false;
    for (const auto& r : be.reads)
      for (const auto& b : r) read_parent = read_parent || (b.stream == 0 && b.last == 10);
    EXPECT_TRUE(read_parent) << policy;
    EXPECT_NEAR(c.totals().storage_write, (17 + 1) * 64 * s.model.kv_bytes_per_token(), 1) << policy;
  }
}
