// A one-line progress report for long runs, rewritten in place on a terminal:
//   "  sim 123.4 s | rounds 4567/19598 (23%) | 28.3 sim-s/s, 1045 rounds/s | ETA 0:14"
// The caller decides whether to show it (stderr is a terminal and not --quiet) and calls update() as often as it
// likes: it prints at most every `min_interval` wall seconds. Wall-clock only: it never affects a run's results.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace dualpath {

class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* out = stderr, double min_interval = 0.5)
      : out_(out), min_interval_(min_interval), start_(Clock::now()), last_(start_) {}

  // Formats the line without printing it (for tests).
  static std::string format(double sim_time, int64_t done, int64_t total, double wall) {
    char buf[256];
    const double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
    const double sim_rate = wall > 0 ? sim_time / wall : 0.0;
    const double round_rate = wall > 0 ? static_cast<double>(done) / wall : 0.0;
    std::string eta = "?";
    if (done > 0 && total >= done) {
      const auto left = static_cast<long long>(wall * static_cast<double>(total - done) / static_cast<double>(done) + 0.5);
      char e[64];
      if (left >= 3600) std::snprintf(e, sizeof e, "%lld:%02lld:%02lld", left / 3600, left / 60 % 60, left % 60);
      else std::snprintf(e, sizeof e, "%lld:%02lld", left / 60, left % 60);
      eta = e;
    }
    std::snprintf(buf, sizeof buf, "  sim %.1f s | rounds %lld/%lld (%.0f%%) | %.1f sim-s/s, %.0f rounds/s | ETA %s",
                  sim_time, static_cast<long long>(done), static_cast<long long>(total), 100 * frac, sim_rate,
                  round_rate, eta.c_str());
    return buf;
  }

  void update(double sim_time, int64_t done, int64_t total) {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < min_interval_) return;
    last_ = now;
    const double wall = std::chrono::duration<double>(now - start_).count();
    std::fprintf(out_, "\r%s\033[K", format(sim_time, done, total, wall).c_str());
    std::fflush(out_);
    shown_ = true;
  }

  // Erases the line if one was printed.
  void finish() {
    if (!shown_) return;
    std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::FILE* out_;
  double min_interval_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

}  // namespace dualpath
