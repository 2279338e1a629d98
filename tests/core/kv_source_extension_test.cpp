// docs/architecture.md "How to add a KV source", tried once: a source written in one file (here, this test; in the
// tree, a file under core/cluster/ plus its line in kv_sources.cpp's built-in list) serves the reads it says it
// holds, the read queues give those reads no SNIC slot and no storage read, and persisted blocks are written
// through to it; a run that does not want it (its factory returns nothing) reads everything from storage.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/cluster/kv_sources.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {

// A node-local cache that holds every block of the even agents (say, a flash tier on the PE node): their reads
// need no storage at all; the odd agents' reads go to storage whole. It keeps count of what it was asked.
class EvenAgentCache final : public KvSources {
 public:
  int written_through = 0;
  bool serves_alone(int agent, int64_t, int64_t) const override { return agent % 2 == 0; }
  Split read(const Request& r, BlockRanges blocks, double bytes, const Done&) override {
    if (r.agent % 2 == 0) return {{}, 0, bytes, 0};  // in the PE node's DRAM already: no transfer
    return {std::move(blocks), bytes, 0, 0};
  }
  void write_through(int, const BlockRanges& blocks) override { written_through += static_cast<int>(blocks.size()); }
  const DramPool* pool() const override { return nullptr; }
};

EvenAgentCache* last_cache = nullptr;
const bool registered = register_kv_source("test-even-agent-cache", [](const KvSourceContext& c)
                                                                        -> std::unique_ptr<KvSources> {
  if (c.scenario.name != "kv-source-test") return nullptr;  // only the runs that ask for it
  auto cache = std::make_unique<EvenAgentCache>();
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
