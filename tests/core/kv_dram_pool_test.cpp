// The DRAM pool of policy dram-pool (core/kv/dram_pool.hpp): placement, LRU eviction of the least recently used
// stream's lowest blocks, no eviction, and the time-weighted occupancy, each against a hand-worked sequence.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/kv/dram_pool.hpp"

using namespace dualpath;

namespace {

// Blocks of [first, last) the stream holds (without using them: a lookup would refresh the stream).
int64_t held(const DramPool& p, int stream, int64_t first, int64_t last) {
  int64_t n = 0;
  for (const auto& s : p.peek(stream)) n += std::max<int64_t>(0, std::min(last, s.last) - std::max(first, s.first));
  return n;
}

}  // namespace

TEST(DramPool, StreamsLiveOnTheirHolderAndLookupIntersects) {
  DramPool p(3, 100, 1e6, PoolEviction::Lru);
  EXPECT_EQ(p.holder(0), 0);
  EXPECT_EQ(p.holder(4), 1);
  p.put(4, 10, 20, 0);
  EXPECT_EQ(held(p, 4, 0, 15), 5);  // [10, 15)
  EXPECT_EQ(held(p, 4, 18, 40), 2);
  EXPECT_EQ(held(p, 1, 0, 100), 0);  // another stream on the same node holds nothing
  p.put(4, 15, 25, 1);               // overlaps: only 20..25 is new
  EXPECT_EQ(p.put_blocks(), 15);
  EXPECT_EQ(p.used_blocks(), 15);
  p.put(4, 30, 32, 2);  // a gap: two ranges
  const auto spans = p.lookup(4, 0, 100);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].first, 10);
  EXPECT_EQ(spans[0].last, 25);
  EXPECT_EQ(spans[1].first, 30);
  EXPECT_EQ(spans[1].last, 32);
}

TEST(DramPool, LruEvictsTheLeastRecentlyUsedStreamsLowestBlocks) {
  DramPool p(1, 10, 1e6, PoolEviction::Lru);
  p.put(0, 0, 4, 0);   // A: 4 blocks
  p.put(1, 0, 4, 1);   // B: 4 blocks
  p.lookup(0, 0, 4);   // A read: B is now the least recently used
  p.put(2, 0, 4, 2);   // C: 2 blocks over capacity -> B's blocks 0 and 1 go
  EXPECT_EQ(p.evicted_blocks(), 2);
  EXPECT_EQ(held(p, 1, 0, 4), 2);
  EXPECT_EQ(p.peek(1).front().first, 2);
  EXPECT_EQ(held(p, 0, 0, 4), 4);
  p.put(3, 0, 3, 3);  // D: 3 more -> B's last 2, then A's block 0 (A older than C)
  EXPECT_EQ(held(p, 1, 0, 4), 0);
  EXPECT_EQ(held(p, 0, 0, 4), 3);
  EXPECT_EQ(held(p, 2, 0, 4), 4);
  EXPECT_EQ(p.used_blocks(), 10);
  EXPECT_EQ(p.evicted_blocks(), 5);
  EXPECT_EQ(p.peak_node_blocks(), 10);
}

TEST(DramPool, ARangeLargerThanTheNodeKeepsItsNewestBlocks) {
  DramPool p(1, 5, 1e6, PoolEviction::Lru);
  p.put(7, 0, 3, 0);
  p.put(7, 3, 12, 1);
  EXPECT_EQ(p.used_blocks(), 5);
  const auto spans = p.lookup(7, 0, 100);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].first, 7);
  EXPECT_EQ(spans[0].last, 12);
}

TEST(DramPool, WithoutEvictionWhatDoesNotFitIsRefused) {
  DramPool p(1, 6, 1e6, PoolEviction::None);
  p.put(0, 0, 4, 0);
  p.put(1, 0, 4, 1);  // only 2 fit: the lowest
  EXPECT_EQ(p.refused_blocks(), 2);
  EXPECT_EQ(p.evicted_blocks(), 0);
  EXPECT_EQ(held(p, 1, 0, 4), 2);
  EXPECT_EQ(p.peek(1).front().first, 0);
  p.put(2, 0, 1, 2);  // full: all refused, nothing held for stream 2
  EXPECT_EQ(p.refused_blocks(), 3);
  EXPECT_TRUE(p.lookup(2, 0, 1).empty());
}

TEST(DramPool, MeanOccupancyIsTimeWeighted) {
  DramPool p(2, 100, 1e6, PoolEviction::Lru);
  p.put(0, 0, 10, 2);   // 10 blocks from t = 2
  p.put(1, 0, 30, 6);   // 40 blocks from t = 6
  // Over [0, 10): 0 x 2 + 10 x 4 + 40 x 4 = 200 block-seconds -> mean 20.
  EXPECT_DOUBLE_EQ(p.mean_used_blocks(10), 20.0);
  EXPECT_EQ(p.peak_node_blocks(), 30);  // node 1 holds stream 1's 30
}
