// The core driven end to end by the closed-form fake backend: the layer pipeline's time, conservation of KV
// bytes and rounds, buffer limits, and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "core/cluster/dram_pool_source.hpp"
#include "core/cluster/cluster.hpp"
#include "fake_backend.hpp"
#include "layer_times.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

using dualpath::test::agent;

// One request with a 4096-token hit on a one-GPU PE: forward time = min(l, c) + L * max(l, c), where l is one
// layer's KV load and c one layer's compute (pipeline fill, then the slower of the two per layer).
class LayerPipeline : public ::testing::TestWithParam<double> {};

namespace {
// The closed form above for the second round of agent(0, {{4096, 2, 0}, {100, 2, 0}}): a 4096-token hit, 102 fresh.
double pipelined_forward(const Cluster& c, const Scenario& s, double cnic_bw) {
  const auto [l, cl] = test::round_two_layer(c, s, cnic_bw);
  return std::min(l, cl) + s.model.n_layers * std::max(l, cl);
}
}  // namespace

TEST_P(LayerPipeline, ForwardTimeMatchesClosedForm) {
  const double cnic_bw = GetParam();
  Scenario s = test::small_scenario();
  s.sim.layer_group = 1;
  s.policy.name = "dualpath";
  s.policy.dual_path = false;  // PE path: the load is an H2D on the PE's own CNIC
  FakeBackend be(FakeRates{50e9, cnic_bw, 1});
  Cluster c(s, {agent(0, {{4096, 2, 0}, {100, 2, 0}})}, be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& r = c.requests().at(1);
  ASSERT_EQ(r.hit, 4096);
  ASSERT_EQ(r.fresh, 4198 - 4096);
  const double expected = pipelined_forward(c, s, cnic_bw);
  EXPECT_NEAR(r.t.first_token - r.t.prefill_start, expected, 1e-9 * expected);
}

// Compute-bound (fast CNIC) and load-bound (slow CNIC) regimes.
INSTANTIATE_TEST_SUITE_P(Regimes, LayerPipeline, ::testing::Values(50e9, 0.5e9));

// A split read (dualpath-split, both queues empty: half the hit through each node): the PE half loads from the PE
// buffer, the DE half over the compute network, both into the PE GPU's CNIC. A stage computes only once both
// halves of its layers are in HBM, so the forward takes the closed form of the whole hit's loads; a stage that
// started on either half alone would finish sooner in the load-bound regime.
TEST_P(LayerPipeline, SplitReadLayerWaitsForBothHalves) {
  const double cnic_bw = GetParam();
  Scenario s = test::small_scenario();
  s.sim.layer_group = 1;
  s.policy.name = "dualpath-split";
  FakeBackend be(FakeRates{50e9, cnic_bw, 1});
  Cluster c(s, {agent(0, {{4096, 2, 0}, {100, 2, 0}})}, be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  const Request& r = c.requests().at(1);
  ASSERT_EQ(r.read.side(), ReadSide::Split);
  ASSERT_EQ(r.read.pe_hit(), 2048);
  EXPECT_NEAR(c.totals().storage_read_pe, 2048 * s.model.kv_bytes_per_token(), 1);
  EXPECT_NEAR(c.totals().storage_read_de, 2048 * s.model.kv_bytes_per_token(), 1);
  // The first round sent its whole prompt; the split round sends its fresh tokens and its PE half.
  const double kv_layer = s.model.kv_bytes_per_token_one_layer();
  EXPECT_NEAR(c.totals().de_to_pe, 2048 * kv_layer * s.model.n_layers, 1);
  const double expected = pipelined_forward(c, s, cnic_bw);
  EXPECT_NEAR(r.t.first_token - r.t.prefill_start, expected, 1e-9 * expected);
}

TEST(LayerPipeline, WithoutLayerwiseTheLoadPrecedesTheWholeForward) {
  Scenario s = test::small_scenario();
  s.policy.name = "basic";
  FakeBackend be(FakeRates{50e9, 1e9, 1});
  Cluster c(s, {agent(0, {{4096, 2, 0}, {100, 2, 0}})}, be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished());
  const Request& r = c.requests().at(1);
  const double load = 4096.0 * s.model.kv_bytes_per_token() / 1e9;
  const double cl = test::round_two_layer(c, s, 1e9).compute;
  EXPECT_NEAR(r.t.first_token - r.t.prefill_start, load + s.model.n_layers * cl, 1e-9);
}

namespace {
std::vector<Agent> mixed_agents(int n) {
  std::vector<Agent> out;
  for (int i = 0; i < n; ++i) {
    std::vector<Round> rounds;
    rounds.push_back({2000 + 300 * i, 70 + i, 0});
    for (int k = 0; k < 5; ++k) rounds.push_back({100 + 37 * ((i + k) % 5), 1 + (i * 13 + k * 7) % 90, 0});
    out.push_back(agent(i, rounds));
  }
  return out;
}

struct RunResult {
  std::vector<RequestTimes> times;
  TransferTotals totals;
  bool finished;
  double peak_buffer;
  double buffer_wait = 0;  // request-seconds spent waiting for DRAM buffer room (PE or DE)
};

RunResult run(const Scenario& s, int agents) {
  FakeBackend be(FakeRates{50e9, 50e9, s.topology.gpus_per_node});
  Cluster c(s, mixed_agents(agents), be);
  c.start();
  be.run();
  RunResult out{{}, c.totals(), c.finished(), c.peak_buffer_fraction(),
                c.waits().total(WaitCause::PeBuffer) + c.waits().total(WaitCause::DeBuffer)};
  for (const auto& r : c.requests()) out.times.push_back(r.t);
  // HBM reservations are all returned at the end.
  for (const auto& e : c.view().engines) EXPECT_NEAR(e.hbm.used(), 0, 1) << "engine " << e.gpu;
  for (const auto& e : c.view().engines) EXPECT_EQ(e.seq, 0);
  return out;
}
}  // namespace

class Conservation : public ::testing::TestWithParam<const char*> {};

TEST_P(Conservation, EveryRoundOnceAndHitBytesDelivered) {
  Scenario s = test::small_scenario(2, 2, 2);
  // "<policy>" or "<policy>+handoff" (decode HBM taken at handoff); "+small": a DRAM pool that must evict.
  const std::string param = GetParam();
  const std::string policy = param.substr(0, param.find('+'));
  s.policy.name = policy;
  if (param.find("+handoff") != std::string::npos) s.policy.de_hbm = DeHbmAt::Handoff;
  if (param.find("+small") != std::string::npos) s.policy.pool.bytes_per_node = 2e6;
  s.policy.compute_quota = 1e9;  // no chunking: each hit is loaded exactly once
  s.topology.dram_buffer_bytes = 2e9;
  FakeBackend be(FakeRates{50e9, 50e9, 2});
  Cluster c(s, mixed_agents(12), be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  EXPECT_EQ(c.rounds_done(), 12 * 6);
  int64_t hit_tokens = 0;
  for (const auto& r : c.requests()) {
    EXPECT_GE(r.t.done, r.t.first_token);
    EXPECT_GE(r.t.first_token, r.t.read_end);
    EXPECT_GE(r.t.read_end, r.t.read_start);
    EXPECT_GE(r.t.read_start, r.t.scheduled());
    EXPECT_EQ(r.decode.generated() >= r.gen || r.gen == 1, true);
    hit_tokens += r.hit;
  }
  const auto& t = c.totals();
  if (policy != "oracle") {
    // Every hit byte is read once, from storage or from the DRAM pool, and reaches PE HBM.
    EXPECT_NEAR(t.storage_read + t.pool_read, hit_tokens * s.model.kv_bytes_per_token(), 1);
    EXPECT_NEAR(t.hit_loaded_to_pe, t.storage_read + t.pool_read, 1);
    EXPECT_LE(c.peak_buffer_fraction(), 1.0);
  } else {
    EXPECT_EQ(t.storage_read, 0);
    EXPECT_EQ(t.pe_to_de, 0);
  }
  // Every storage call names its Full Blocks: reads only blocks already persisted, each written once, and the
  // byte counts are the named blocks' bytes.
  const double block_bytes = s.policy.block_tokens * s.model.kv_bytes_per_token();
  double named_read = 0, named_written = 0;
  for (const auto& call : be.reads)
    for (const auto& r : call) named_read += static_cast<double>(r.last - r.first) * block_bytes;
  for (const auto& call : be.writes)
    for (const auto& r : call) named_written += static_cast<double>(r.last - r.first) * block_bytes;
  EXPECT_EQ(be.unpersisted_reads, 0);
  EXPECT_EQ(be.rewritten_blocks, 0);
  EXPECT_NEAR(named_read, t.storage_read, 1);
  EXPECT_NEAR(named_written, t.storage_write, 1);
  if (policy != "oracle") {
    EXPECT_GT(named_written, 0);
  }
  if (policy == "basic") {
    EXPECT_EQ(t.storage_read_de, 0);
  }
  if (policy == "dualpath") {
    EXPECT_GT(t.storage_read_de, 0);
  }
  if (policy == "dram-pool") {  // persisted blocks written through; hits from the pool, and with a small pool also
                                // from storage (PE SNICs only)
    ASSERT_NE(c.kv_sources().find<DramPoolSource>(), nullptr);
    const DramPool& pool = c.kv_sources().find<DramPoolSource>()->pool();
    EXPECT_NEAR(t.pool_write, t.storage_write, 1);
    EXPECT_NEAR(static_cast<double>(pool.put_blocks() + pool.refused_blocks()) * block_bytes, t.pool_write, 1);
    EXPECT_GT(t.pool_read, 0);
    EXPECT_EQ(t.storage_read_de, 0);
    EXPECT_EQ(t.de_to_pe, 0);
    EXPECT_LE(pool.peak_node_blocks(), pool.capacity_blocks());
    if (param.find("+small") != std::string::npos) {
      EXPECT_GT(t.storage_read, 0);
      EXPECT_GT(pool.evicted_blocks(), 0);
    } else {
      EXPECT_EQ(pool.evicted_blocks(), 0);
    }
  } else {
    EXPECT_EQ(t.pool_read + t.pool_write, 0);
  }
  if (policy == "dualpath-split") {  // reads were split: each half's bytes counted once, on its own node
    const auto split = std::count_if(c.requests().begin(), c.requests().end(), [](const Request& r) {
      return r.read.side() == ReadSide::Split && r.read.pe_hit() > 0 && r.read.pe_hit() < r.hit;
    });
    EXPECT_GT(split, 0);
    EXPECT_GT(t.storage_read_pe, 0);
    EXPECT_GT(t.storage_read_de, 0);
    EXPECT_NEAR(t.storage_read_pe + t.storage_read_de, t.storage_read, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, Conservation,
                         ::testing::Values("dualpath", "basic", "oracle", "dualpath-split", "dualpath+handoff",
                                           "basic+handoff", "oracle+handoff", "dualpath-split+handoff", "dram-pool",
                                           "dram-pool+small", "dram-pool+handoff+small"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '+', '_');
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Cluster, SmallBuffersMakeRequestsWaitNeverExceedCapacity) {
  Scenario s = test::small_scenario(1, 1, 2);
  // Room for about two prompts in flight per node.
  s.topology.dram_buffer_bytes = 2.5 * 4000 * s.model.kv_bytes_per_token();
  const auto r = run(s, 8);
  EXPECT_TRUE(r.finished);
  EXPECT_LE(r.peak_buffer, 1.0);
  EXPECT_GT(r.peak_buffer, 0.5);
  EXPECT_GT(r.buffer_wait, 0.01);  // requests did wait for room
  s.topology.dram_buffer_bytes = 1e13;
  EXPECT_EQ(run(s, 8).buffer_wait, 0);  // and with ample buffers none does
}

// Split reads with buffers too small for all of them: the first half of a split read to reach a queue head admits
// the request with the room both halves need, so its second half needs only a read slot. Left in FIFO order behind
// a head that waits for that very room, neither would ever move (a qwen32b-1p2d run stalled with every queue head
// waiting for DE buffer room and no read in flight). Every round completes.
TEST(Cluster, AdmittedSplitHalvesDoNotWaitBehindHeadsBlockedOnRoom) {
  Scenario s = test::small_scenario(1, 2, 2);
  s.policy.name = "dualpath-split";
  s.topology.dram_buffer_bytes = 20000 * s.model.kv_bytes_per_token();  // ~2.5 of the largest prompts
  const auto r = run(s, 32);
  EXPECT_TRUE(r.finished);
  EXPECT_LE(r.peak_buffer, 1.0);
  EXPECT_GT(r.buffer_wait, 0.01);  // buffers did bind
}

// Decode HBM for one request only. "assign" (Algorithm 1 reserves free_HBM when it picks the DE): the second
// request is not even assigned a DE, so its read waits, until the first one's decode ends. "handoff" (§2.5: the
// DE allocates HBM when the prompt KV is in its buffer): the second one is read and prefilled meanwhile and waits
// in the DE buffer for the HBM; it finishes earlier.
TEST(Cluster, DecodeHbmIsTakenAtAssignmentOrAtHandoff) {
  Scenario s = test::small_scenario();
  s.policy.name = "basic";
  const double need = 4050 * s.model.kv_bytes_per_token();
  s.topology.gpu.hbm_bytes = CostModel(s.model, s.topology.gpu).weight_bytes_per_gpu(1) + 1.5 * need;
  const std::vector<Agent> agents = {agent(0, {{4000, 50, 0}}), agent(1, {{4000, 50, 0}})};
  std::map<std::string, std::vector<RequestTimes>> times;
  std::map<std::string, double> hbm_wait_after_read;
  for (const std::string mode : {"assign", "handoff"}) {
    s.policy.de_hbm = choice_value(kDeHbmAts, mode);
    FakeBackend be(FakeRates{50e9, 50e9, 1});
    Cluster c(s, agents, be);
    c.start();
    be.run();
    ASSERT_TRUE(c.finished()) << mode << ": " << c.stall_report();
    for (const auto& r : c.requests()) times[mode].push_back(r.t);
    for (const auto& e : c.view().engines) EXPECT_NEAR(e.hbm.used(), 0, 1) << mode;
    hbm_wait_after_read[mode] = c.waits().total(WaitCause::HandoffHbm);
  }
  for (const auto& [mode, t] : times) ASSERT_EQ(t.size(), 2u) << mode;
  const auto first_done = [](const std::vector<RequestTimes>& t) { return std::min(t[0].done, t[1].done); };
  const auto second = [](const std::vector<RequestTimes>& t) { return t[0].done < t[1].done ? t[1] : t[0]; };
  // assign: the second request's read starts only after the first round ended.
  EXPECT_GE(second(times["assign"]).read_start, first_done(times["assign"]) - 1e-9);
  // handoff: it is read and prefilled while the first decodes, then waits for HBM before its handoff ends.
  const RequestTimes h = second(times["handoff"]);
  EXPECT_LT(h.first_token, first_done(times["handoff"]));
  EXPECT_GE(h.handoff_end, first_done(times["handoff"]) - 1e-9);
  EXPECT_GT(hbm_wait_after_read["handoff"], 0);
  EXPECT_LT(second(times["handoff"]).done, second(times["assign"]).done);
}

TEST(Cluster, RequestLargerThanEveryBufferStopsWithExplanation) {
  Scenario s = test::small_scenario();
  s.topology.dram_buffer_bytes = 1e6;
  FakeBackend be(FakeRates{});
  Cluster c(s, {agent(0, {{4096, 2, 0}})}, be);
  EXPECT_THROW(c.start(), NoProgressError);
}

TEST(Cluster, DeterministicTimelines) {
  Scenario s = test::small_scenario(2, 2, 2);
  const auto a = run(s, 10), b = run(s, 10);
  ASSERT_EQ(a.times.size(), b.times.size());
  for (size_t i = 0; i < a.times.size(); ++i) {
    EXPECT_EQ(a.times[i].first_token, b.times[i].first_token);
    EXPECT_EQ(a.times[i].done, b.times[i].done);
  }
}

TEST(Cluster, ActivityLogFollowsThePipelineOrder) {
  Scenario s = test::small_scenario(1, 1, 2);
  s.sim.layer_group = 2;
  FakeBackend be(FakeRates{50e9, 50e9, 2});
  ActivityLog log;
  Cluster c(s, mixed_agents(4), be);
  c.set_activity_log(&log);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished());
  ASSERT_FALSE(log.forwards.empty());
  ASSERT_FALSE(log.decode_chunks.empty());
  for (const auto& st : log.stages) {
    EXPECT_GE(st.compute_start, st.load_end);      // a stage computes only once its KV is in HBM
    EXPECT_GE(st.compute_end, st.compute_start);
    EXPECT_EQ(st.layers, 2);
  }
  for (const auto& t : log.transfers) EXPECT_GE(t.end, t.start);
  for (const auto& d : log.decode_chunks) EXPECT_GT(d.end, d.start);
  size_t logged = 0;
  for (const auto& f : log.forwards) logged += f.request_ids.size();
  EXPECT_GE(logged, c.requests().size());  // every request is in at least one forward
}

// A failed storage read is retried once on the other read path; the round completes and every hit byte is still
// counted exactly once. A read that fails again stops the run with StorageError (no request is silently lost).
TEST(Cluster, FailedReadIsRetriedOnTheOtherPath) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.policy.name = "dualpath";
  s.policy.compute_quota = 1e9;
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  be.fail_read = [](int node, int call) { return node == 0 && call == 0 ? std::string("SNIC down") : std::string(); };
  Cluster c(s, mixed_agents(4), be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  ASSERT_EQ(c.read_retries(), 1);
  EXPECT_NE(c.read_failures()[0].find("SNIC down"), std::string::npos);
  int64_t hit_tokens = 0, retried = 0;
  for (const auto& r : c.requests()) {
    hit_tokens += r.hit;
    if (r.read.retries() > 0) {
      ++retried;
      EXPECT_EQ(r.read.side(), ReadSide::De);  // the PE node's read failed; the DE node's SNIC read it
    }
  }
  EXPECT_EQ(retried, 1);
  EXPECT_NEAR(c.totals().storage_read, hit_tokens * s.model.kv_bytes_per_token(), 1);
  for (const auto& n : c.view().nodes) EXPECT_NEAR(n.buffer.used(), 0, 1);
}

TEST(Cluster, ReadFailingTwiceStopsTheRun) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.policy.name = "basic";  // one read path: the retry goes through the same failed SNIC
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  be.fail_read = [](int node, int) { return node == 0 ? std::string("SNIC down") : std::string(); };
  Cluster c(s, mixed_agents(2), be);
  c.start();
  EXPECT_THROW(be.run(), StorageError);
}
