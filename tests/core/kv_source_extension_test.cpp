// docs/architecture.md "How to add a KV tier", tried once: a tier written in one file (here, this test; in the
// tree, a file under core/cluster/ plus its line in kv_sources.cpp's built-in list) serves the reads it says it
// holds, the read stage gives those reads no SNIC slot and no storage read, and persisted blocks are written
// through to it; chained behind the DRAM pool it serves what the pool misses; a run that does not want it (its
// factory returns nothing) reads everything from storage.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/cluster/dram_pool_source.hpp"
#include "core/cluster/kv_sources.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {

// A node-local cache that holds every block of the even agents (say, a flash tier on the PE node): their reads
// need no storage at all; the odd agents' reads go on whole to the tiers behind it. It keeps count of what it was
// asked.
class EvenAgentCache final : public KvSource {
 public:
  explicit EvenAgentCache(const ClusterLayout& layout, int64_t block_tokens)
      : layout_(layout), block_tokens_(block_tokens) {}
  int written_through = 0;
  // Stream s holds agent s's own blocks (no sharing in these agents).
  BlockRanges missing(const BlockRanges& blocks) const override {
    BlockRanges out;
    for (const auto& b : blocks)
      if (b.stream % 2 != 0) out.push_back(b);
    return out;
  }
  Served read(const Request&, BlockRanges blocks, const Done&) override {
    Served s;
    s.rest = missing(blocks);
    s.bytes = layout_.kv_bytes((BlockIndex::block_count(blocks) - BlockIndex::block_count(s.rest)) * block_tokens_);
    return s;  // in the PE node's DRAM already: no transfer
  }
  void write_through(int, const BlockRanges& blocks) override { written_through += static_cast<int>(blocks.size()); }
  void report(double, const TransferTotals&, nlohmann::json& summary) const override {
    summary["even_cache"] = {{"written_through", written_through}};
  }

 private:
  const ClusterLayout& layout_;
  int64_t block_tokens_;
};

EvenAgentCache* last_cache = nullptr;
const bool registered = register_kv_source("test-even-agent-cache", [](const KvSourceContext& c)
                                                                        -> std::unique_ptr<KvSource> {
  if (c.scenario.name != "kv-source-test") return nullptr;  // only the runs that ask for it
  auto cache = std::make_unique<EvenAgentCache>(c.layout, c.blocks.block_tokens());
  last_cache = cache.get();
  return cache;
});

std::vector<Agent> agents(int n) {
  std::vector<Agent> out;
  for (int i = 0; i < n; ++i) out.push_back(agent(i, {{3000 + 200 * i, 20, 0}, {150, 10, 0}, {150, 10, 0}}));
  return out;
}

std::set<int> streams_read(const FakeBackend& be) {
  std::set<int> out;
  for (const auto& call : be.reads)
    for (const auto& r : call) out.insert(r.stream);
  return out;
}

}  // namespace

TEST(KvSourceExtension, AddedSourceServesWhatItHoldsAndStorageTheRest) {
  ASSERT_TRUE(registered);
  Scenario s = test::small_scenario(1, 1, 1);
  s.name = "kv-source-test";
  s.policy.name = "dualpath";
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  last_cache = nullptr;
  Cluster c(s, agents(4), be);
  ASSERT_NE(last_cache, nullptr) << "the Cluster did not ask the registry for its source";
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  int64_t odd_hit = 0, even_hit = 0;
  for (const auto& r : c.requests()) (r.agent % 2 == 0 ? even_hit : odd_hit) += r.hit;
  ASSERT_GT(even_hit, 0);
  ASSERT_GT(odd_hit, 0);
  const double kv = s.model.kv_bytes_per_token();
  EXPECT_NEAR(c.totals().storage_read, odd_hit * kv, 1) << "only the odd agents' hits come from storage";
  EXPECT_NEAR(c.totals().pool_read, even_hit * kv, 1) << "the even agents' hits are counted as the source's";
  EXPECT_EQ(streams_read(be), (std::set<int>{1, 3}));
  EXPECT_GT(last_cache->written_through, 0) << "persisted blocks are written through to it";
  nlohmann::json summary;
  c.kv_sources().report(c.requests()[0].t.done, c.totals(), summary);
  EXPECT_EQ(summary.at("even_cache").at("written_through"), last_cache->written_through)
      << "the tier writes its own report section";
  EXPECT_FALSE(summary.contains("pool"));
}

// Chained behind the DRAM pool (policy dram-pool; "dram-pool" < "test-even-agent-cache": front to back), the cache
// serves the even agents' blocks the pool does not hold, and storage serves only odd agents' blocks.
TEST(KvSourceExtension, ChainedBehindThePoolServesWhatThePoolMisses) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.name = "kv-source-test";
  s.policy.name = "dram-pool";
  s.policy.pool.bytes_per_node = 1e6;  // a tiny pool: most hits miss it
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  last_cache = nullptr;
  Cluster c(s, agents(4), be);
  ASSERT_NE(last_cache, nullptr);
  ASSERT_NE(c.kv_sources().find<DramPoolSource>(), nullptr) << "the pool is in the chain too";
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  int64_t hit = 0;
  for (const auto& r : c.requests()) hit += r.hit;
  const double kv = s.model.kv_bytes_per_token();
  EXPECT_NEAR(c.totals().storage_read + c.totals().pool_read, hit * kv, 1) << "every hit byte comes from somewhere";
  const auto read = streams_read(be);
  EXPECT_FALSE(read.empty());
  for (int stream : read) EXPECT_EQ(stream % 2, 1) << "storage serves no even agent's block";
  nlohmann::json summary;
  c.kv_sources().report(c.requests()[0].t.done, c.totals(), summary);
  EXPECT_TRUE(summary.contains("pool") && summary.contains("even_cache")) << "each tier writes its section";
}

TEST(KvSourceExtension, ARunThatDoesNotWantItReadsFromStorage) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.policy.name = "dualpath";  // another scenario name: the factory returns nothing
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  last_cache = nullptr;
  Cluster c(s, agents(4), be);
  EXPECT_EQ(last_cache, nullptr);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  int64_t hit = 0;
  for (const auto& r : c.requests()) hit += r.hit;
  EXPECT_NEAR(c.totals().storage_read, hit * s.model.kv_bytes_per_token(), 1);
  EXPECT_EQ(c.totals().pool_read, 0);
  EXPECT_EQ(streams_read(be), (std::set<int>{0, 1, 2, 3}));
}
