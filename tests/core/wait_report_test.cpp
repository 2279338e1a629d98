// The "what binds" report: every request-second is charged to exactly one cause (so the causes add up to the
// requests' lifetimes and TTFTs), the causes point at what a run is short of, and the streamed buffer lifecycle
// holds the PE buffer for exactly as long as the Layer Blocks need it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/cluster/cluster.hpp"
#include "core/metrics/wait_report.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

using dualpath::test::agent;

namespace {

std::vector<Agent> agents(int n) {
  std::vector<Agent> out;
  for (int i = 0; i < n; ++i) {
    std::vector<Round> rounds;
    rounds.push_back({3000 + 250 * i, 40 + i, 0});
    for (int k = 0; k < 6; ++k) rounds.push_back({120 + 31 * ((i + k) % 4), 2 + (i * 11 + k * 5) % 70, 0});
    out.push_back(agent(i, rounds));
  }
  return out;
}

double by_cause(const WaitTracker& w, std::initializer_list<WaitCause> causes) {
  double s = 0;
  for (auto c : causes) s += w.total(c);
  return s;
}
}  // namespace

TEST(WaitTracker, ChargesSplitOverBinsAndSharesAddUp) {
  WaitTracker w(1.0);
  w.charge(WaitCause::Read, 0.5, 2.5);
  w.charge(WaitCause::PeQueue, 1.0, 2.0);
  w.charge(WaitCause::Decode, 0.0, 3.0);
  w.charge(WaitCause::Fetch, 2.0, 2.0);  // empty interval: nothing
  EXPECT_DOUBLE_EQ(w.total(WaitCause::Read), 2.0);
  ASSERT_EQ(w.bins(), 3u);
  EXPECT_DOUBLE_EQ(w.in_bin(0, WaitCause::Read), 0.5);
  EXPECT_DOUBLE_EQ(w.in_bin(1, WaitCause::Read), 1.0);
  EXPECT_DOUBLE_EQ(w.in_bin(2, WaitCause::Read), 0.5);
  EXPECT_DOUBLE_EQ(w.in_bin(1, WaitCause::PeQueue), 1.0);
  const auto j = w.to_json(3.0, ResourceUse{}, 3);
  // TTFT causes: read 2 s (snic), pe_queue 1 s (pe_compute); decode is after the first token.
  EXPECT_DOUBLE_EQ(j["ttft"]["request_seconds"].get<double>(), 3.0);
  EXPECT_NEAR(j["ttft"]["by_resource"]["snic"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_EQ(j["ttft"]["binds"], "snic");
  EXPECT_DOUBLE_EQ(j["round"]["request_seconds"].get<double>(), 6.0);
  double sum = 0;
  for (const auto& [k, v] : j["round"]["by_cause"].items()) sum += v.get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-12);
  ASSERT_EQ(j["phases"].size(), 3u);
  EXPECT_EQ(j["phases"][0]["ttft_binds"], "snic");  // [0, 1): 0.5 s of read only
  EXPECT_NEAR(j["phases"][1]["ttft_by_resource"]["pe_compute"].get<double>(), 0.5, 1e-12);  // [1, 2): 1 s each
  EXPECT_EQ(w.binding_line(), "snic 67%");
}

TEST(WaitTracker, AVeryLongWaitCoarsensTheBinsInsteadOfAllocatingThemAll) {
  // A 9e8 s think time once made the tracker allocate 9e8 one-second bins (bad_alloc). Past kMaxBins the bins merge
  // pairwise and double; every request-second is still charged, and the bins cover the whole span.
  WaitTracker w(1.0);
  w.charge(WaitCause::Read, 0.5, 2.5);
  w.charge(WaitCause::Decode, 3.0, 9e8);
  EXPECT_LE(w.bins(), WaitTracker::kMaxBins);
  EXPECT_GE(w.bin_seconds() * static_cast<double>(w.bins()), 9e8);
  EXPECT_DOUBLE_EQ(w.total(WaitCause::Read), 2.0);
  double read = 0, decode = 0;
  for (size_t b = 0; b < w.bins(); ++b) {
    read += w.in_bin(b, WaitCause::Read);
    decode += w.in_bin(b, WaitCause::Decode);
  }
  EXPECT_DOUBLE_EQ(read, 2.0);
  EXPECT_NEAR(decode, 9e8 - 3.0, 1e-6 * 9e8);
  EXPECT_DOUBLE_EQ(w.in_bin(0, WaitCause::Read), 2.0);  // [0, 2.5) now lies in the first (coarse) bin
}

// Every request-second from arrival to the round's end is charged once: the causes add up to the rounds'
// lifetimes, and the causes before the first token to the TTFTs, under every policy and buffer lifecycle.
class WaitConservation : public ::testing::TestWithParam<std::tuple<const char*, const char*, const char*>> {};

TEST_P(WaitConservation, CausesAddUpToLifetimesAndTtfts) {
  Scenario s = test::small_scenario(2, 2, 2);
  s.policy.name = std::get<0>(GetParam());
  s.policy.buffer = choice_value(kBufferLifecycles, std::get<1>(GetParam()));
  s.policy.de_hbm = choice_value(kDeHbmAts, std::get<2>(GetParam()));
  s.topology.dram_buffer_bytes = 3 * 5000 * s.model.kv_bytes_per_token();  // buffers bind now and then
  // Decode HBM for about three requests per engine, so decode HBM binds now and then too.
  s.topology.gpu.hbm_bytes = CostModel(s.model, s.topology.gpu).weight_bytes_per_gpu(s.deployment.de_group_gpus) +
                             3 * 5000 * s.model.kv_bytes_per_token();
  FakeBackend be(FakeRates{20e9, 50e9, 2});
  Cluster c(s, agents(10), be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  double life = 0, ttft = 0;
  for (const auto& r : c.requests()) life += r.t.done - r.t.arrival, ttft += r.t.first_token - r.t.arrival;
  double all = 0, before = 0;
  for (int k = 0; k < kWaitCauses; ++k) {
    all += c.waits().total(static_cast<WaitCause>(k));
    if (k < kTtftCauses) before += c.waits().total(static_cast<WaitCause>(k));
  }
  EXPECT_NEAR(all, life, 1e-9 * life);
  EXPECT_NEAR(before, ttft, 1e-9 * ttft);
  // Every request went through a read (or, for the oracle, none) and a forward.
  EXPECT_GT(c.waits().total(WaitCause::PrefillCompute), 0);
  if (s.policy.name == "oracle") EXPECT_EQ(c.waits().total(WaitCause::Read), 0);
  else EXPECT_GT(c.waits().total(WaitCause::Read), 0);
  // The buffers' byte-seconds, split by what their holders waited for, add up to each side's occupancy.
  double end = 0;
  for (const auto& r : c.requests()) end = std::max(end, r.t.done);
  PerSide<double> used, by_holder;
  for (const auto& n : c.view().nodes) used[n.prefill ? ReadSide::Pe : ReadSide::De] += n.buffer.mean_used(end) * end;
  for (ReadSide side : kNodeSides) {
    for (int k = 0; k < kWaitCauses; ++k) by_holder[side] += c.waits().held(side, static_cast<WaitCause>(k));
    EXPECT_NEAR(by_holder[side], used[side], 1e-6 * (used[side] + 1)) << node_label(side);
  }
  // Buffers and HBM are all returned.
  for (const auto& n : c.view().nodes) EXPECT_NEAR(n.buffer.used(), 0, 1);
  for (const auto& e : c.view().engines) EXPECT_NEAR(e.hbm.used(), 0, 1);
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndBuffers, WaitConservation,
                         ::testing::Combine(::testing::Values("dualpath", "basic", "oracle"),
                                            ::testing::Values("stream", "reserve"),
                                            ::testing::Values("assign", "handoff")));

// Buffers too small for more than a couple of prompts: requests wait on DRAM buffer room, and the report says so;
// with ample buffers no request waits on a buffer at all.
TEST(WaitReport, SmallBuffersShowAsBufferWaits) {
  for (const char* mode : {"stream", "reserve"}) {
    Scenario s = test::small_scenario(1, 1, 2);
    s.policy.buffer = choice_value(kBufferLifecycles, mode);
    FakeBackend tight_be(FakeRates{50e9, 50e9, 2});
    s.topology.dram_buffer_bytes = 2.2 * 4500 * s.model.kv_bytes_per_token();
    Cluster tight(s, agents(8), tight_be);
    tight.start();
    tight_be.run();
    ASSERT_TRUE(tight.finished()) << tight.stall_report();
    EXPECT_GT(by_cause(tight.waits(), {WaitCause::PeBuffer, WaitCause::DeBuffer}), 0.05) << mode;
    EXPECT_LE(tight.peak_buffer_fraction(), 1.0) << mode;

    s.topology.dram_buffer_bytes = 1e13;
    FakeBackend ample_be(FakeRates{50e9, 50e9, 2});
    Cluster ample(s, agents(8), ample_be);
    ample.start();
    ample_be.run();
    ASSERT_TRUE(ample.finished());
    EXPECT_EQ(by_cause(ample.waits(), {WaitCause::PeBuffer, WaitCause::DeBuffer}), 0) << mode;
  }
}

// One PE-path request with a 4096-token hit, load-bound layerwise pipeline (one layer per stage): layer k's
// Layer Blocks reach HBM at prefill_start + (k+1)·l. Streamed buffers give the PE buffer back layer by layer, so
// it holds hit_bytes·[(prefill_start - read_start) + l·(L+1)/2] byte-seconds; reserved buffers hold all of it
// until the first token: hit_bytes·(first_token - read_start).
TEST(BufferLifecycle, StreamedPeBufferIsReleasedLayerByLayer) {
  for (const char* mode : {"stream", "reserve"}) {
    Scenario s = test::small_scenario();
    s.sim.layer_group = 1;
    s.policy.dual_path = false;
    s.policy.buffer = choice_value(kBufferLifecycles, mode);
    const double cnic = 0.5e9;  // load-bound: one layer's load is longer than its compute
    FakeBackend be(FakeRates{50e9, cnic, 1});
    Cluster c(s, {agent(0, {{4096, 2, 0}, {100, 2, 0}})}, be);
    c.start();
    be.run();
    ASSERT_TRUE(c.finished());
    const Request& r = c.requests().at(1);
    ASSERT_EQ(r.hit, 4096);
    const int L = s.model.n_layers;
    const double l = 4096.0 * s.model.kv_bytes_per_token_one_layer() / cnic;
    ASSERT_GT(l, c.cost().attention_layer_time(4096, 102) + c.cost().linear_layer_time(102, c.cost().weight_bytes_per_gpu(1)));
    const double end = r.t.done;
    const double held = c.view().nodes[0].buffer.mean_used(end) * end;
    const double expected = std::string(mode) == "stream"
                                ? r.hit_bytes * ((r.t.prefill_start - r.t.read_start) + l * (L + 1) / 2.0)
                                : r.hit_bytes * (r.t.first_token - r.t.read_start);
    EXPECT_NEAR(held, expected, 1e-9 * expected) << mode;
    // The report's split of the PE buffer's byte-seconds by holder adds up to the same, and the holder is the
    // request in its read, waiting for or running its forward.
    double by_holder = 0;
    for (int k = 0; k < kWaitCauses; ++k) by_holder += c.waits().held(ReadSide::Pe, static_cast<WaitCause>(k));
    EXPECT_NEAR(by_holder, expected, 1e-9 * expected) << mode;
    EXPECT_GT(c.waits().held(ReadSide::Pe, WaitCause::Read), 0) << mode;
    EXPECT_GT(c.waits().held(ReadSide::Pe, WaitCause::KvLoad), 0) << mode;
  }
}

// Streamed buffers: a PE-path request reserves no DE buffer while it is read and waits for its forward.
TEST(BufferLifecycle, StreamedDeBufferIsReservedWhenTheForwardStarts) {
  Scenario s = test::small_scenario();
  s.policy.dual_path = false;
  s.policy.buffer = BufferLifecycle::Stream;
  FakeBackend be(FakeRates{1e9, 50e9, 1});  // a slow SNIC: the read takes a while
  Cluster c(s, {agent(0, {{4096, 2, 0}, {100, 2, 0}})}, be);
  c.start();
  double de_used_during_read = -1;
  while (be.step()) {
    const auto& r = c.requests();
    if (r.size() == 2 && r[1].t.read_start >= 0 && r[1].t.read_end < 0) de_used_during_read = c.view().nodes[1].buffer.used();
  }
  ASSERT_TRUE(c.finished());
  EXPECT_EQ(de_used_during_read, 0);
  EXPECT_GT(c.view().nodes[1].buffer.peak(), 0);
}
