// The shipped baselines' mechanisms (docs/baselines.md), driven end to end by the closed-form fake backend:
// de-prefetch (SGLang's decode-side storage load with delta-only P->D) and policy.layerwise_min_tokens (SGLang's
// minimum prefill length for the layer pipeline). Each test fails without its mechanism (mutants in brackets in
// docs/architecture.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "core/cluster/cluster.hpp"
#include "fake_backend.hpp"
#include "layer_times.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {
// Round 1 prefills 4096 new tokens; round 2 (4096 + 2 + 100 tokens) hits the 4096 persisted ones: 102 fresh.
std::vector<Agent> two_rounds() { return {agent(0, {{4096, 2, 0}, {100, 2, 0}})}; }

// A scenario's agents run to their end on the closed-form backend (`setup` prepares the backend first, e.g. the
// reads it fails).
struct Ran {
  FakeBackend be;
  Cluster c;
  Ran(const Scenario& s, std::vector<Agent> agents, FakeRates rates,
      const std::function<void(FakeBackend&)>& setup = {})
      : be(rates), c(s, std::move(agents), be) {
    if (setup) setup(be);
    c.start();
    be.run();
  }
};
}  // namespace

// de-prefetch: round 2's hit is read through both nodes' SNICs (the PE's for its prefill, the DE's into the decode
// buffer), and the compute network carries only the KV the DE lacks: round 1's whole prompt, round 2's fresh tokens.
TEST(DePrefetch, ReadsTheHitOnBothNodesAndSendsOnlyTheDelta) {
  Scenario s = test::small_scenario();
  s.policy.name = "de-prefetch";
  Ran run(s, two_rounds(), FakeRates{50e9, 50e9, 1});
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& r = c.requests().at(1);
  ASSERT_EQ(r.hit, 4096);
  ASSERT_EQ(r.read.side(), ReadSide::Pe);
  EXPECT_EQ(r.read.prefetch(), ReadHalf::Done);
  const double kv = s.model.kv_bytes_per_token();
  EXPECT_NEAR(c.totals().storage_read_pe, 4096 * kv, 1);
  EXPECT_NEAR(c.totals().storage_read_de, 4096 * kv, 1);
  EXPECT_NEAR(c.totals().pe_to_de, (4096 + 102) * kv, 1);  // [prefetch_sends_whole] adds 4096 * kv
  EXPECT_EQ(run.be.unpersisted_reads, 0);
}

// Basic's PE-path read of the same rounds sends the hit too, and reads it once.
TEST(DePrefetch, BasicSendsTheWholePromptAndReadsOnce) {
  Scenario s = test::small_scenario();
  s.policy.name = "basic";
  Ran run(s, two_rounds(), FakeRates{50e9, 50e9, 1});
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const double kv = s.model.kv_bytes_per_token();
  EXPECT_NEAR(c.totals().storage_read_de, 0, 1);
  EXPECT_NEAR(c.totals().pe_to_de, (4096 + 4198) * kv, 1);
}

// Decode takes a request only once the DE buffer holds its prefetched hit: the DE node's prefetch fails once (its
// SNIC time spent) and is read again, so it ends at two hit reads after the PE read started, well after the
// prefill's first token; the handoff starts no earlier.
TEST(DePrefetch, DecodeWaitsForThePrefetch) {
  Scenario s = test::small_scenario();
  s.policy.name = "de-prefetch";
  int de_reads = 0;
  Ran run(s, two_rounds(), FakeRates{0.5e9, 50e9, 1}, [&de_reads](FakeBackend& be) {  // reads of 43 ms
    be.fail_read = [&de_reads](int node, int) {
      return node == 1 && de_reads++ == 0 ? std::string("flaky") : std::string();
    };
  });
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& r = c.requests().at(1);
  const double read = 4096 * s.model.kv_bytes_per_token() / 0.5e9;
  ASSERT_LT(r.t.first_token, r.t.read_start + 2 * read);  // the prefill is done before the prefetch
  EXPECT_GE(r.t.handoff_start, r.t.read_start + 2 * read - 1e-12);  // [prefetch_not_awaited]
  ASSERT_EQ(c.read_failures().size(), 1u);
  EXPECT_NE(c.read_failures()[0].find("decode-side prefetch on node 1"), std::string::npos) << c.read_failures()[0];
}

// The prefetch's DE room is taken with the PE read (so a prefetch never waits for room): the DE buffer's peak
// holds the prompt from then on, and every byte is given back.
TEST(DePrefetch, BuffersAreGivenBack) {
  Scenario s = test::small_scenario(1, 1, 2);
  s.policy.name = "de-prefetch";
  std::vector<Agent> agents;
  for (int a = 0; a < 6; ++a) agents.push_back(agent(a, {{2048 + 64 * a, 3, 0.5}, {100, 3, 0}, {50, 2, 0}}));
  Ran run(s, agents, FakeRates{50e9, 50e9, 2});
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  for (const auto& n : c.view().nodes) EXPECT_NEAR(n.buffer.used(), 0, 1e-3);
  EXPECT_NEAR(c.totals().storage_read_pe, c.totals().storage_read_de, 1);
}

// policy.layerwise_min_tokens: a request with fewer new tokens than the minimum is not streamed. Its whole KV loads
// before the forward's first stage computes, so the forward takes L*l + L*c instead of min(l, c) + L*max(l, c)
// (l: one layer's load, c: one layer's compute; tests/core/cluster_test.cpp LayerPipeline).
class LayerwiseMinTokens : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerwiseMinTokens, ShortRequestsLoadWholeBeforeComputing) {
  const int64_t min_tokens = GetParam();
  Scenario s = test::small_scenario();
  s.sim.layer_group = 1;
  s.policy.name = "dualpath";
  s.policy.dual_path = false;  // PE path: the load is an H2D on the PE's own CNIC
  s.policy.layerwise_min_tokens = min_tokens;
  const double cnic_bw = 0.5e9;  // load-bound: a pipelined forward hides all but one layer's compute
  Ran run(s, two_rounds(), FakeRates{50e9, cnic_bw, 1});
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& r = c.requests().at(1);
  ASSERT_EQ(r.fresh, 102);
  const auto [l, cl] = test::round_two_layer(c, s, cnic_bw);
  const int L = s.model.n_layers;
  const double expected = r.fresh >= min_tokens ? std::min(l, cl) + L * std::max(l, cl) : L * l + L * cl;
  EXPECT_NEAR(r.t.first_token - r.t.prefill_start, expected, 1e-9 * expected);  // [min_tokens_ignored]
  // The PE buffer and HBM are whole again either way.
  for (const auto& n : c.view().nodes) EXPECT_NEAR(n.buffer.used(), 0, 1e-3);
}

// 0 and 102 stream round 2 (102 new tokens), 103 and 2048 do not.
INSTANTIATE_TEST_SUITE_P(Minimums, LayerwiseMinTokens, ::testing::Values(0, 102, 103, 2048));

// pe-pull-from-de: round 1's context stays in its decode engine's HBM; round 2 is placed on that engine and its
// prefill pulls the 4096-token hit from there, GPU to GPU: nothing is read from storage, and decode takes only the
// new tokens' KV (round 1 sent its whole prompt), straight into its HBM.
TEST(PePullFromDe, TheNextRoundPullsItsHitFromDecodeHbm) {
  Scenario s = test::small_scenario();
  s.policy.name = "pe-pull-from-de";
  Ran run(s, two_rounds(), FakeRates{50e9, 50e9, 1});
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& r = c.requests().at(1);
  EXPECT_EQ(r.read.side(), ReadSide::DeHbm);
  const double kv = s.model.kv_bytes_per_token();
  EXPECT_NEAR(r.decode.resident_bytes(), (4198 + 2) * kv, 1);  // its whole decode HBM, held since its placement
  EXPECT_NEAR(c.totals().storage_read, 0, 1);  // [no_resident_pull] reads the hit from storage
  EXPECT_NEAR(c.totals().de_hbm_to_pe, 4096 * kv, 1);
  EXPECT_NEAR(c.totals().pe_to_de, (4096 + 102) * kv, 1);
  // Round 2's KV moves GPU to GPU both ways: the only H2D is round 1's handoff (no DE buffer for round 2).
  EXPECT_NEAR(c.totals().h2d, 4096 * kv, 1);
  // The last round's context is still pinned at the end: the retention's HBM cost.
  ASSERT_NE(c.residency(), nullptr);
  EXPECT_NEAR(c.residency()->held_bytes(), (4198 + 2) * kv, 1);
  EXPECT_NEAR(c.view().engines[1].hbm.used(), (4198 + 2) * kv, 1);
  EXPECT_EQ(c.residency()->figures().taken, 1);
}

// The next round decodes where the last one did (vLLM's proxy keyed by conversation); round-robin placement alone
// would send it to the other decode engine.
TEST(PePullFromDe, TheNextRoundGoesToTheEngineThatKeptItsContext) {
  for (const std::string policy : {"pe-pull-from-de", "basic"}) {
    Scenario s = test::small_scenario(1, 1, 2);
    s.policy.name = policy;
    Ran run(s, two_rounds(), FakeRates{50e9, 50e9, 2});
    const Cluster& c = run.c;
    ASSERT_TRUE(c.finished()) << c.stall_report();
    const bool same = c.requests().at(1).de == c.requests().at(0).de;
    EXPECT_EQ(same, policy == "pe-pull-from-de") << policy;
  }
}

// A context kept past policy.de_retention is gone: a round that comes 10 s after its agent's last one reads its hit
// from storage through the PE node when the retention is 1 s, and pulls it with the default 480 s.
TEST(PePullFromDe, AContextKeptPastTheRetentionIsReadFromStorage) {
  for (const double retention : {1.0, 480.0}) {
    Scenario s = test::small_scenario();
    s.policy.name = "pe-pull-from-de";
    s.policy.de_retention = retention;
    Ran run(s, {agent(0, {{4096, 2, 10}, {100, 2, 0}})}, FakeRates{50e9, 50e9, 1});
    const Cluster& c = run.c;
    ASSERT_TRUE(c.finished()) << c.stall_report();
    const double kv = s.model.kv_bytes_per_token();
    const bool pulled = retention > 10;
    EXPECT_EQ(c.requests().at(1).read.side(), pulled ? ReadSide::DeHbm : ReadSide::Pe) << retention;
    EXPECT_NEAR(c.totals().storage_read_pe, pulled ? 0 : 4096 * kv, 1) << retention;
    EXPECT_EQ(c.residency()->figures().expired, pulled ? 0 : 1) << retention;
  }
}

// GPUDirect Storage (topology.storage.gdr): Basic's round-2 read lands in the PE GPU's HBM (one read into HBM, by
// GPU 0), so the prefill loads nothing over the CNIC loopback: the H2D bytes are those without it less the hit. No
// PE DRAM buffer is used, and the GPU's HBM held for the read is given back after its prefill.
TEST(Gdr, PePathReadsLandInHbmWithoutAnH2d) {
  double h2d[2];
  for (const bool gdr : {false, true}) {
    Scenario s = test::small_scenario();
    s.policy.name = "basic";
    s.topology.storage.gdr = gdr;
    Ran run(s, two_rounds(), FakeRates{50e9, 50e9, 1});
    const Cluster& c = run.c;
    ASSERT_TRUE(c.finished()) << c.stall_report();
    h2d[gdr] = c.totals().h2d;
    EXPECT_EQ(run.be.hbm_reads, gdr ? std::vector<int>{0} : std::vector<int>{}) << gdr;
    if (gdr) {
      EXPECT_EQ(c.view().nodes[0].buffer.peak(), 0);
    }
    EXPECT_NEAR(c.view().engines[0].hbm.used(), 0, 1e-3) << gdr;
    EXPECT_NEAR(c.totals().hit_loaded_to_pe, 4096 * s.model.kv_bytes_per_token(), 1) << gdr;
  }
  EXPECT_NEAR(h2d[0] - h2d[1], 4096 * test::small_scenario().model.kv_bytes_per_token(), 1);
}

// A gdr read holds its prompt's room in the PE GPU's HBM from its admission: with HBM for about one prompt, two
// agents' reads go one after the other, and the run still ends (no forward waits for room the reads hold).
TEST(Gdr, ReadsWaitForPeHbmAndNeverDeadlock) {
  Scenario s = test::small_scenario();
  s.policy.name = "basic";
  s.topology.storage.gdr = true;
  const double weights = 40e9;  // small_scenario's weight_bytes on one GPU
  s.topology.gpu.hbm_bytes = weights + 1.5 * 4300 * s.model.kv_bytes_per_token();
  Ran run(s, {agent(0, {{4096, 2, 0}, {100, 2, 0}}), agent(1, {{4096, 2, 0}, {100, 2, 0}})}, FakeRates{50e9, 50e9, 1});
  const Cluster& c = run.c;
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& a = c.requests().at(2), &b = c.requests().at(3);  // the two round-2 requests
  ASSERT_EQ(a.round, 1);
  ASSERT_EQ(b.round, 1);
  // The second read started only after the first one's prefill gave its HBM back.
  EXPECT_GE(std::max(a.t.read_start, b.t.read_start), std::min(a.t.first_token, b.t.first_token) - 1e-12);
}
