// SampleSet (core/metrics/sample_set.hpp): percentiles over samples spilled to disk in sorted runs are bit for bit
// those of one in-memory sort (the mean is summed in the same ascending order), for every spill size, with ties,
// and with the memory held bounded by the spill size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/metrics/sample_set.hpp"

using namespace dualpath;

namespace {
// The reference: nearest rank on one sorted copy, the sum in ascending order.
Percentiles reference(std::vector<double> v) {
  Percentiles p;
  p.count = v.size();
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
  };
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  p.p50 = at(0.5), p.p90 = at(0.9), p.p99 = at(0.99), p.max = v.back();
  return p;
}

void expect_same(const Percentiles& a, const Percentiles& b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.mean, b.mean);  // exactly: the same additions in the same order
  EXPECT_EQ(a.p50, b.p50);
  EXPECT_EQ(a.p90, b.p90);
  EXPECT_EQ(a.p99, b.p99);
  EXPECT_EQ(a.max, b.max);
}
}  // namespace

TEST(SampleSet, SpilledRunsGiveExactlyTheInMemoryPercentiles) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> ttft(-1.0, 1.5);  // wide range: the sum's rounding depends on the order
  for (size_t n : {1u, 2u, 99u, 100u, 101u, 1000u, 12345u}) {
    std::vector<double> v(n);
    for (auto& x : v) x = ttft(rng);
    for (size_t spill : {1u, 7u, 100u, 1024u, 1u << 20}) {
      SampleSet s(spill);
      for (double x : v) s.add(x);
      EXPECT_EQ(s.size(), n);
      EXPECT_EQ(s.runs(), n / spill) << "n " << n << " spill " << spill;  // a full buffer is spilled
      expect_same(s.take(), reference(v));
    }
  }
}

TEST(SampleSet, TiesAndTheEmptySet) {
  std::vector<double> v;
  for (int i = 0; i < 5000; ++i) v.push_back(static_cast<double>(i % 7) * 0.1);  // many equal values across runs
  SampleSet s(333);
  for (double x : v) s.add(x);
  expect_same(s.take(), reference(v));
  SampleSet empty(4);
  const Percentiles p = empty.take();
  EXPECT_EQ(p.count, 0u);
  EXPECT_EQ(p.mean, 0.0);
  EXPECT_EQ(p.max, 0.0);
}

TEST(SampleSet, NearestRankPicksTheRightElements) {
  // 1..200 shuffled, spilled in runs of 16: p50 = 100, p90 = 180, p99 = 198, max 200, mean 100.5.
  std::vector<double> v;
  for (int i = 1; i <= 200; ++i) v.push_back(i);
  std::shuffle(v.begin(), v.end(), std::mt19937_64(3));
  SampleSet s(16);
  for (double x : v) s.add(x);
  const Percentiles p = s.take();
  EXPECT_EQ(p.p50, 100.0);
  EXPECT_EQ(p.p90, 180.0);
  EXPECT_EQ(p.p99, 198.0);
  EXPECT_EQ(p.max, 200.0);
  EXPECT_EQ(p.mean, 100.5);
}
