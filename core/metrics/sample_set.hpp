// The samples a percentile is taken over (TTFT, TTST, TPOT, second-token gap), in bounded memory: up to
// `spill_at` values are held; beyond that each full buffer is sorted and written to an anonymous temporary file
// (a sorted run), and the percentiles come from a merge of the runs. The merge visits the values in the same
// ascending order as one sort of all of them, so the mean (summed in that order), the nearest-rank percentiles and
// the maximum are bit for bit those of percentiles(all values): a 10-hour online run's summary is exact while its
// memory stays flat (issue 46; docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>
#include <vector>

namespace dualpath {

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
  size_t count = 0;
};
Percentiles percentiles(std::vector<double> values);  // nearest-rank; empty input gives zeros

class SampleSet {
 public:
  static constexpr size_t kDefaultSpillAt = size_t{1} << 16;  // 512 KiB of doubles per metric
  explicit SampleSet(size_t spill_at = kDefaultSpillAt);
  ~SampleSet();
  SampleSet(SampleSet&&) noexcept;
  SampleSet& operator=(SampleSet&&) noexcept;
  SampleSet(const SampleSet&) = delete;
  SampleSet& operator=(const SampleSet&) = delete;

  void add(double v) {
    held_.push_back(v);
    if (held_.size() >= spill_at_) spill();
  }
  size_t size() const { return spilled_ + held_.size(); }
  size_t runs() const { return runs_.size(); }  // sorted runs written to disk so far
  // Mean, p50, p90, p99 and max; consumes the set. Throws std::runtime_error when a temporary file fails.
  Percentiles take();

 private:
  struct Run {
    std::FILE* file = nullptr;
    size_t count = 0;
  };
  void spill();
  size_t spill_at_;
  std::vector<double> held_;
  std::vector<Run> runs_;
  size_t spilled_ = 0;
};

}  // namespace dualpath
