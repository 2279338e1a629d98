// BlockStore: one file per Full Block, io_uring and pread engines, checksums, clear errors, SNIC pacing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "hw/block_store.hpp"

namespace dualpath::hw {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("dualpath-hw-test-" + std::to_string(::getpid()) + "-" + name)) {
    fs::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<BlockKey> keys(uint64_t agent, int n) {
  std::vector<BlockKey> k;
  for (int i = 0; i < n; ++i) k.push_back({agent, static_cast<uint32_t>(i)});
  return k;
}

struct Engine {
  bool uring;
  bool direct;
};

class BlockStoreEngines : public ::testing::TestWithParam<Engine> {};

TEST_P(BlockStoreEngines, WritesThenReadsBackEveryBlockWithChecksums) {
  TempDir dir("rw" + std::to_string(GetParam().uring) + std::to_string(GetParam().direct));
  BlockStoreOptions o;
  o.dir = dir.path.string();
  o.block_bytes = 100'000;  // not a multiple of 4 KiB: padding is the store's business
  o.nodes = 2;
  o.io_uring = GetParam().uring;
  o.direct = GetParam().direct;
  BlockStore store(o);
  if (GetParam().uring) EXPECT_NE(store.engine().find("io_uring"), std::string::npos) << store.engine();
  else EXPECT_NE(store.engine().find("pread"), std::string::npos) << store.engine();
  const auto k = keys(7, 12);
  ASSERT_EQ(store.write_sync(1, k, 5'000), "");  // the last block is partial
  for (const auto& key : k) ASSERT_TRUE(fs::exists(store.path_of(key))) << store.path_of(key);
  EXPECT_EQ(fs::file_size(store.path_of(k[0])) % 4096, 0u);
  EXPECT_EQ(fs::file_size(store.path_of(k.back())), store.file_bytes(5'000));
  ASSERT_EQ(store.read_sync(0, k), "");
  const auto st = store.stats();
  EXPECT_EQ(st.blocks_written, 12u);
  EXPECT_EQ(st.blocks_read, 12u);
  EXPECT_EQ(st.blocks_verified, 12u);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.bytes_read, st.bytes_written);
}

INSTANTIATE_TEST_SUITE_P(Hw, BlockStoreEngines,
                         ::testing::Values(Engine{true, true}, Engine{true, false}, Engine{false, true},
                                           Engine{false, false}),
                         [](const auto& info) {
                           return std::string(info.param.uring ? "uring" : "pread") +
                                  (info.param.direct ? "_direct" : "_buffered");
                         });

BlockStoreOptions small(const TempDir& dir, bool uring) {
  BlockStoreOptions o;
  o.dir = dir.path.string();
  o.block_bytes = 16'384;
  o.io_uring = uring;
  return o;
}

TEST(HwBlockStore, MissingFileIsAClearError) {
  for (bool uring : {true, false}) {
    TempDir dir(std::string("missing") + (uring ? "u" : "p"));
    BlockStore store(small(dir, uring));
    ASSERT_EQ(store.write_sync(0, keys(1, 3)), "");
    fs::remove(store.path_of({1, 1}));
    const std::string err = store.read_sync(0, keys(1, 3));
    EXPECT_NE(err.find("missing block file"), std::string::npos) << err;
    EXPECT_NE(err.find("stream 1, block 1"), std::string::npos) << err;
    EXPECT_EQ(store.stats().errors, 1u);
  }
}

TEST(HwBlockStore, ShortReadIsAClearError) {
  for (bool uring : {true, false}) {
    TempDir dir(std::string("short") + (uring ? "u" : "p"));
    BlockStore store(small(dir, uring));
    ASSERT_EQ(store.write_sync(0, keys(2, 2)), "");
    fs::resize_file(store.path_of({2, 0}), 8192);  // header intact, payload cut
    const std::string err = store.read_sync(0, keys(2, 2));
    EXPECT_NE(err.find("short read"), std::string::npos) << err;
    EXPECT_NE(err.find("8192 of"), std::string::npos) << err;
  }
}

TEST(HwBlockStore, CorruptionAndMisplacedBlocksAreDetected) {
  TempDir dir("corrupt");
  BlockStore store(small(dir, true));
  ASSERT_EQ(store.write_sync(0, keys(3, 2)), "");
  {
    std::fstream f(store.path_of({3, 0}), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1000);
    f.put('\x5a');
  }
  std::string err = store.read_sync(0, {{3, 0}});
  EXPECT_NE(err.find("checksum mismatch"), std::string::npos) << err;
  fs::copy_file(store.path_of({3, 1}), store.path_of({3, 9}));
  err = store.read_sync(0, {{3, 9}});
  EXPECT_NE(err.find("holds stream 3 block 1"), std::string::npos) << err;
}

TEST(HwBlockStore, NodeReadRateIsPaced) {
  TempDir dir("paced");
  BlockStoreOptions o = small(dir, true);
  o.block_bytes = 60'000;  // 60 KiB files with the header and padding
  o.read_rate = 10e6;      // 10 MB/s
  o.nodes = 2;
  BlockStore store(o);
  ASSERT_EQ(store.write_sync(0, keys(4, 8)), "");
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(store.read_sync(1, keys(4, 8)), "");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double expect = 8.0 * static_cast<double>(store.file_bytes(60'000)) / 10e6;  // 8 x 61,440 B: 49 ms
  EXPECT_GE(s, expect * 0.95);
  EXPECT_LT(s, expect + 0.5);
}

TEST(HwBlockStore, PayloadPatternAndChecksumDependOnTheKey) {
  std::vector<char> a(4096), b(4096);
  BlockStore::fill_payload({1, 2}, a.data(), a.size());
  BlockStore::fill_payload({1, 3}, b.data(), b.size());
  EXPECT_NE(a, b);
  EXPECT_NE(BlockStore::checksum(a.data(), a.size()), BlockStore::checksum(b.data(), b.size()));
  const uint64_t before = BlockStore::checksum(a.data(), a.size());
  a[4000] ^= 1;
  EXPECT_NE(BlockStore::checksum(a.data(), a.size()), before);
}

}  // namespace
}  // namespace dualpath::hw
