#include "core/metrics/sample_set.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

namespace dualpath {

namespace {

// Nearest rank: the value at 1-based rank ceil(q * n) (the first for q * n <= 1).
size_t rank_index(double q, size_t n) {
  const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
  return std::min(n - 1, k == 0 ? 0 : k - 1);
}

// One sorted run read back in pieces.
class RunReader {
 public:
  RunReader(std::FILE* f, size_t count) : f_(f), left_(count) {
    if (std::fseek(f_, 0, SEEK_SET) != 0) throw std::runtime_error("percentiles: cannot rewind a temporary file");
    refill();
  }
  bool empty() const { return pos_ == buf_.size(); }
  double front() const { return buf_[pos_]; }
  void pop() {
    if (++pos_ == buf_.size()) refill();
  }

 private:
  void refill() {
    const size_t n = std::min(left_, kPiece);
    buf_.resize(n);
    pos_ = 0;
    if (n == 0) return;
    if (std::fread(buf_.data(), sizeof(double), n, f_) != n)
      throw std::runtime_error("percentiles: a temporary file of spilled samples could not be read back");
    left_ -= n;
  }
  static constexpr size_t kPiece = 8192;
  std::FILE* f_;
  size_t left_;
  std::vector<double> buf_;
  size_t pos_ = 0;
};

}  // namespace

Percentiles percentiles(std::vector<double> values) {
  SampleSet s(values.size() + 1);
  for (double v : values) s.add(v);
  return s.take();
}

SampleSet::SampleSet(size_t spill_at) : spill_at_(std::max<size_t>(spill_at, 1)) {}

SampleSet::~SampleSet() {
  for (auto& r : runs_) std::fclose(r.file);
}

SampleSet::SampleSet(SampleSet&& o) noexcept
    : spill_at_(o.spill_at_), held_(std::move(o.held_)), runs_(std::move(o.runs_)), spilled_(o.spilled_) {
  o.runs_.clear(), o.spilled_ = 0;
}

SampleSet& SampleSet::operator=(SampleSet&& o) noexcept {
  if (this != &o) {
    for (auto& r : runs_) std::fclose(r.file);
    spill_at_ = o.spill_at_, held_ = std::move(o.held_), runs_ = std::move(o.runs_), spilled_ = o.spilled_;
    o.runs_.clear(), o.spilled_ = 0;
  }
  return *this;
}

void SampleSet::spill() {
  std::sort(held_.begin(), held_.end());
  std::FILE* f = std::tmpfile();
  if (f == nullptr) throw std::runtime_error("percentiles: cannot create a temporary file for spilled samples");
  if (std::fwrite(held_.data(), sizeof(double), held_.size(), f) != held_.size()) {
    std::fclose(f);
    throw std::runtime_error("percentiles: cannot write spilled samples to a temporary file (disk full?)");
  }
  runs_.push_back({f, held_.size()});
  spilled_ += held_.size();
  held_.clear();
}

Percentiles SampleSet::take() {
  Percentiles p;
  const size_t n = size();
  p.count = n;
  if (n == 0) return p;
  std::sort(held_.begin(), held_.end());
  const size_t i50 = rank_index(0.50, n), i90 = rank_index(0.90, n), i99 = rank_index(0.99, n);
  double sum = 0;
  size_t i = 0;
  auto visit = [&](double v) {
    sum += v;
    if (i == i50) p.p50 = v;
    if (i == i90) p.p90 = v;
    if (i == i99) p.p99 = v;
    if (i == n - 1) p.max = v;
    ++i;
  };
  if (runs_.empty()) {
    for (double v : held_) visit(v);
  } else {
    // k-way merge of the runs on disk and the sorted values still held (the last source).
    std::vector<RunReader> readers;
    readers.reserve(runs_.size());
    for (const auto& r : runs_) readers.emplace_back(r.file, r.count);
    size_t held_pos = 0;
    const size_t held_source = readers.size();
    using Head = std::pair<double, size_t>;  // value, source
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (size_t s = 0; s < readers.size(); ++s)
      if (!readers[s].empty()) heads.push({readers[s].front(), s});
    if (!held_.empty()) heads.push({held_[0], held_source});
    while (!heads.empty()) {
      const auto [v, s] = heads.top();
      heads.pop();
      visit(v);
      if (s == held_source) {
        if (++held_pos < held_.size()) heads.push({held_[held_pos], s});
      } else {
        readers[s].pop();
        if (!readers[s].empty()) heads.push({readers[s].front(), s});
      }
    }
  }
  p.mean = sum / static_cast<double>(n);
  for (auto& r : runs_) std::fclose(r.file);
  runs_.clear(), held_.clear(), spilled_ = 0;
  return p;
}

}  // namespace dualpath
