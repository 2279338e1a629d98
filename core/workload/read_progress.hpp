// Progress while a large trace file is read (issue 45: no command silent for minutes): a plain line on stderr every
// 5 s of wall time, "reading FILE: N lines (P% of the file)", and nothing for a file read in less. Wall-clock only:
// it never changes what is read or written.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <string>

namespace dualpath::workload {

class ReadProgress {
 public:
  ReadProgress(std::istream& in, std::string path) : in_(in), path_(std::move(path)), start_(Clock::now()), last_(start_) {
    const auto here = in_.tellg();
    if (here >= 0 && in_.seekg(0, std::ios::end)) {
      size_ = static_cast<double>(in_.tellg());
      in_.seekg(here);
    }
    in_.clear();
  }
  // One line read; checks the clock every 4,096 lines.
  void line() {
    if ((++lines_ & 4095) != 0) return;
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(5)) return;
    last_ = now;
    const auto at = in_.tellg();
    if (size_ > 0 && at >= 0)
      std::fprintf(stderr, "reading %s: %lld lines (%.0f%% of the file)\n", path_.c_str(), static_cast<long long>(lines_),
                   100.0 * static_cast<double>(at) / size_);
    else
      std::fprintf(stderr, "reading %s: %lld lines\n", path_.c_str(), static_cast<long long>(lines_));
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::istream& in_;
  std::string path_;
  Clock::time_point start_, last_;
  double size_ = 0;
  int64_t lines_ = 0;
};

}  // namespace dualpath::workload
