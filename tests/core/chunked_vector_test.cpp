// ChunkedVector (core/vocab/chunked_vector.hpp), the run's request log: indexing across chunk boundaries, element
// addresses that never move as the log grows (the engine holds Request& across round issues), iteration in index
// order, const and not.
#include "core/vocab/chunked_vector.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <stdexcept>
#include <string>
#include <vector>

namespace dualpath {
namespace {

// "e<i>" (built with +=: GCC 12 at -O3 warns falsely, -Wrestrict, on "literal" + std::string)
std::string name(int i) {
  std::string s = "e";
  s += std::to_string(i);
  return s;
}

TEST(ChunkedVector, IndexesAcrossChunksAndKeepsAddresses) {
  ChunkedVector<std::string, 4> v;  // small chunks: 10 elements span three
  EXPECT_TRUE(v.empty());
  std::vector<const std::string*> at;
  for (int i = 0; i < 10; ++i) {
    v.push_back(name(i));
    at.push_back(&v[static_cast<size_t>(i)]);
    EXPECT_EQ(v.back(), name(i));
  }
  ASSERT_EQ(v.size(), 10u);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i], name(static_cast<int>(i))) << i;
    EXPECT_EQ(&v[i], at[i]) << "element " << i << " moved as the vector grew";
  }
  EXPECT_EQ(v.at(9), "e9");
  EXPECT_THROW((void)v.at(10), std::out_of_range);
  v[5] = "changed";
  EXPECT_EQ(*at[5], "changed");
}

TEST(ChunkedVector, IteratesInIndexOrder) {
  ChunkedVector<int, 3> v;
  for (int i = 0; i < 8; ++i) v.push_back(i * i);
  std::vector<int> seen;
  for (int& x : v) seen.push_back(x++);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 4, 9, 16, 25, 36, 49}));
  const auto& c = v;
  std::vector<int> after;
  for (const int& x : c) after.push_back(x);
  EXPECT_EQ(after, (std::vector<int>{1, 2, 5, 10, 17, 26, 37, 50}));  // the loop above wrote through its references
  ChunkedVector<int, 3> none;
  EXPECT_TRUE(none.begin() == none.end());
  EXPECT_EQ(std::count_if(c.begin(), c.end(), [](int x) { return x % 2 == 0; }), 4);  // a standard algorithm
}

TEST(ChunkedVector, ReleasedChunksAreFreedAndReadingThemIsAClearError) {
  ChunkedVector<std::string, 4> v;
  for (int i = 0; i < 10; ++i) v.push_back(name(i));
  const std::string* kept = &v[4];
  v.release_chunk(0);
  EXPECT_FALSE(v.held(0));
  EXPECT_FALSE(v.held(3));
  EXPECT_TRUE(v.held(4));
  EXPECT_FALSE(v.held(10));  // past the end
  EXPECT_THROW((void)v[2], std::logic_error);
  EXPECT_EQ(&v[4], kept);  // the others stay where they were, under the same indices
  EXPECT_EQ(v[9], "e9");
  v.push_back(name(10));
  EXPECT_EQ(v.size(), 11u);
  EXPECT_EQ(v[10], "e10");
  EXPECT_THROW(v.release_chunk(3), std::out_of_range);  // no such chunk
}

}  // namespace
}  // namespace dualpath
