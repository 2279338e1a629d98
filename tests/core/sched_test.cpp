// Scheduling decisions against the paper's rules: Algorithm 1 (PE), two-level DE selection, read path,
// compute-quota batching.
#include <gtest/gtest.h>

#include <set>

#include "core/sched/de_selection.hpp"
#include "core/sched/pe_selection.hpp"
#include "core/sched/policy_registry.hpp"
#include "core/sched/quota_batcher.hpp"

using namespace dualpath;

namespace {
ClusterView view_with(int engines, int engines_per_node) {
  ClusterView v;
  v.gpus_per_node = engines_per_node;
  v.alpha_tokens = 1000;
  v.beta_tokens = 500;
  v.nodes.resize((engines + engines_per_node - 1) / engines_per_node);
  v.engines.resize(engines);
  std::vector<int> g;
  for (int i = 0; i < engines; ++i) {
    v.engines[i].gpu = i, v.engines[i].node = i / engines_per_node, v.engines[i].group = 0;
    v.engines[i].hbm = BufferPool(100);
    g.push_back(i);
  }
  v.pe_groups = {g};
  v.de_groups = {g};
  return v;
}
std::deque<QueuedRequest> queue_of(std::initializer_list<int64_t> tokens, double hbm = 10) {
  std::deque<QueuedRequest> q;
  int64_t id = 0;
  for (auto t : tokens) q.push_back({id++, t, hbm});
  return q;
}
}  // namespace

TEST(Algorithm1, PicksFewestTokensAndUpdatesInLoop) {
  auto v = view_with(3, 1);
  v.engines[0].tok = 100, v.engines[1].tok = 50, v.engines[2].tok = 70;
  const auto out = select_prefill_engines(v, v.pe_groups[0], queue_of({40, 40, 40}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].engine, 1);  // 50 -> 90
  EXPECT_EQ(out[1].engine, 2);  // 70 -> 110
  EXPECT_EQ(out[2].engine, 1);  // 90 < 100, 110
}

TEST(Algorithm1, ShortReadQueuePreferredOverFewerTokens) {
  auto v = view_with(2, 1);
  v.engines[0].tok = 10;   // its node has a long read queue
  v.engines[1].tok = 300;  // short read queue
  v.nodes[0].read_queue_tokens = 5000;
  v.nodes[1].read_queue_tokens = 10;
  const auto out = select_prefill_engines(v, v.pe_groups[0], queue_of({10}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].engine, 1);
}

TEST(Algorithm1, LongQueueEnginesUsedWhenNoShortOne) {
  auto v = view_with(2, 1);
  v.nodes[0].read_queue_tokens = v.nodes[1].read_queue_tokens = 5000;
  v.engines[0].tok = 40, v.engines[1].tok = 20;
  const auto out = select_prefill_engines(v, v.pe_groups[0], queue_of({10}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].engine, 1);
}

// Idle engines tie at 0 tokens: a tie goes to the first engine from the request's id on, so single requests
// fetched one at a time spread over the group instead of all landing on its first engine (whose rail would then
// carry the node's KV: docs/split-reads.md, "Findings").
TEST(Algorithm1, TiesSpreadByRequestId) {
  auto v = view_with(4, 1);
  std::set<int> picked;
  for (int64_t id = 0; id < 4; ++id) {
    auto q = queue_of({10});
    q[0].id = 100 + id;
    const auto out = select_prefill_engines(v, v.pe_groups[0], q);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].engine, v.pe_groups[0][static_cast<size_t>((100 + id) % 4)]);
    picked.insert(out[0].engine);
  }
  EXPECT_EQ(picked.size(), 4u);
}

TEST(Algorithm1, OverloadedEnginesSkippedAndFetchEnds) {
  auto v = view_with(2, 1);
  v.engines[0].tok = 600;  // > beta = 500: overloaded
  v.engines[1].tok = 400;
  const auto out = select_prefill_engines(v, v.pe_groups[0], queue_of({200, 10, 10}));
  // Engine 1 takes the first request (400 -> 600), then every engine is over beta: the fetch ends.
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].engine, 1);
  EXPECT_EQ(out[0].index, 0u);
}

TEST(DeSelection, HbmFitCheckEndsFetch) {
  auto v = view_with(2, 1);
  v.engines[0].hbm.try_reserve(95);  // 5 free
  v.engines[1].hbm.try_reserve(92);  // 8 free
  const auto out = select_decode_engines(v, v.de_groups[0], queue_of({10, 10}, 6));
  ASSERT_EQ(out.size(), 1u);  // only engine 1 fits the first; then nothing fits the second
  EXPECT_EQ(out[0].engine, 1);
}

TEST(DeSelection, LowTokenEnginesPickedByFewestRequests) {
  auto v = view_with(3, 1);
  v.engines[0].tok = 100, v.engines[0].seq = 5;
  v.engines[1].tok = 120, v.engines[1].seq = 1;
  v.engines[2].tok = 110, v.engines[2].seq = 3;
  // Z = 1.05 * (10 + 330) / 3 = 119: engines 0 (110) and 2 (120 > 119 -> high)... engine 1 is high (130).
  const auto out = select_decode_engines(v, v.de_groups[0], queue_of({10}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].engine, 0);  // the only low-token engine, despite having the most requests
}

TEST(DeSelection, HighTokenFallbackPicksFewestTokens) {
  auto v = view_with(2, 1);
  v.engines[0].tok = 100, v.engines[0].seq = 1;
  v.engines[1].tok = 90, v.engines[1].seq = 9;
  // Z = 1.05 * (1000 + 190) / 2 = 624.75; 1000 + tok > Z for both: fewest tokens wins.
  const auto out = select_decode_engines(v, v.de_groups[0], queue_of({1000}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].engine, 1);
}

TEST(DeSelection, GroupRoutingBalancesTokensWithinOneDrain) {
  auto v = view_with(4, 1);
  v.de_groups = {{0, 1}, {2, 3}};
  v.engines[0].tok = 100;
  const auto routes = route_to_decode_groups(v, queue_of({50, 50, 50}), {0, 0});
  ASSERT_EQ(routes.size(), 3u);
  EXPECT_EQ(routes[0], 1);  // 0 < 100
  EXPECT_EQ(routes[1], 1);  // 50 < 100
  EXPECT_EQ(routes[2], 0);  // 100 vs 100: first group
}

// dualpath-split: the PE part levels the two node queues, x = (Q_de + h - Q_pe) / 2 in [0, h].
TEST(ReadPath, SplitLevelsTheTwoNodeQueues) {
  auto v = view_with(2, 1);
  PolicySpec spec;
  spec.name = "dualpath-split";
  auto p = make_policy(spec);
  Request r;
  r.pe = 0, r.de = 1, r.hit = 3000;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::Split);
  EXPECT_EQ(p->split_pe_tokens(v, r), 1500);  // empty queues: half each
  v.nodes[0].read_queue_tokens = 1000;
  EXPECT_EQ(p->split_pe_tokens(v, r), 1000);  // 1000 + 1000 = 0 + 2000
  v.nodes[1].read_queue_tokens = 5000;
  EXPECT_EQ(p->split_pe_tokens(v, r), 3000);  // the DE queue is longer by more than h: all through the PE
  v.nodes[0].read_queue_tokens = 9000;
  EXPECT_EQ(p->split_pe_tokens(v, r), 0);     // and the other way round
  r.hit = 0;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::Pe);  // nothing to read
  spec.dual_path = false;
  r.hit = 3000;
  EXPECT_EQ(make_policy(spec)->choose_read_side(v, r), ReadSide::Pe);  // ablation: PE reads only
}

TEST(ReadPath, ShorterNodeReadQueueWins) {
  auto v = view_with(2, 1);
  PolicySpec spec;
  spec.name = "dualpath";
  auto p = make_policy(spec);
  Request r;
  r.pe = 0, r.de = 1;
  v.nodes[0].read_queue_tokens = 100, v.nodes[1].read_queue_tokens = 50;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::De);
  v.nodes[1].read_queue_tokens = 150;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::Pe);
  spec.name = "basic";
  EXPECT_EQ(make_policy(spec)->choose_read_side(v, r), ReadSide::Pe);
}

TEST(PolicyRegistry, TogglesOverrideDefaultsAndUnknownNameIsAnError) {
  PolicySpec spec;
  spec.name = "basic";
  spec.layerwise = true;
  const auto f = effective_features(spec);
  EXPECT_TRUE(f.layerwise);
  EXPECT_FALSE(f.dual_path);
  EXPECT_FALSE(f.scheduler);
  spec.name = "nope";
  EXPECT_THROW(make_policy(spec), std::exception);
  spec.name = "oracle";
  EXPECT_TRUE(effective_features(spec).bypass_io);
}

TEST(QuotaBatcher, FillsQuotaThenChunksTheLastRequest) {
  auto predict = [](int64_t, int64_t fresh) { return static_cast<double>(fresh) / 64.0; };
  std::vector<BatchCandidate> ready = {{0, 8, 0}, {0, 16, 0}, {0, 4, 0}};
  const auto b = form_batch(ready, BatchLimits{0.25, 0}, predict);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].fresh, 8);   // 0.125 s
  EXPECT_EQ(b[1].fresh, 8);   // chunk: 0.125 + 8/64 = 0.25 fits exactly; 9 would not
  EXPECT_EQ(b[1].index, 1u);
}

TEST(QuotaBatcher, CachedTokensCountInPrediction) {
  auto predict = [](int64_t cached, int64_t fresh) { return static_cast<double>(fresh * (cached + fresh)) / 1e4; };
  std::vector<BatchCandidate> ready = {{1000, 10, 0}, {1000, 20, 0}};
  // first: 10*1010/1e4 = 1.01 > 0.3 -> chunk: b*(1000+b)/1e4 <= 0.3 -> b = 2 (0.2004); 3 -> 0.3009
  const auto b = form_batch(ready, BatchLimits{0.3, 0}, predict);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].fresh, 2);
}

TEST(QuotaBatcher, HbmBudgetCapsNonLayerwiseBatches) {
  auto predict = [](int64_t, int64_t) { return 0.0; };
  std::vector<BatchCandidate> ready = {{0, 1, 40}, {0, 1, 40}, {0, 1, 40}};
  EXPECT_EQ(form_batch(ready, BatchLimits{0.3, 100}, predict).size(), 2u);
  EXPECT_EQ(form_batch(ready, BatchLimits{0.3, 0}, predict).size(), 3u);  // layerwise: unconstrained
}

// Mixed hardware (issue 65): a DE node whose SNIC reads twice as fast drains twice the tokens in the same time, so
// the read goes where the queue empties first, not where it is shorter; one kind of node compares tokens as before.
TEST(ReadPath, QueuesCompareAsTimesWhenSnicsDiffer) {
  auto v = view_with(2, 1);
  PolicySpec spec;
  spec.name = "dualpath";
  auto p = make_policy(spec);
  Request r;
  r.pe = 0, r.de = 1, r.hit = 3000;
  v.nodes[0].read_queue_tokens = 100, v.nodes[1].read_queue_tokens = 150;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::Pe);  // one speed: the shorter queue
  v.nodes[0].read_bw = 50e9, v.nodes[1].read_bw = 100e9;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::De);  // 150 at 2x drains in 75 < 100
  v.nodes[1].read_queue_tokens = 250;
  EXPECT_EQ(p->choose_read_side(v, r), ReadSide::Pe);  // 125 > 100
  // The split levels drain times: (0 + x) / 1 = (0 + 3000 - x) / 2 -> x = 1000 through the PE.
  spec.name = "dualpath-split";
  v.nodes[0].read_queue_tokens = v.nodes[1].read_queue_tokens = 0;
  EXPECT_EQ(make_policy(spec)->split_pe_tokens(v, r), 1000);
}
