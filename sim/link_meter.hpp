// Integrates per-link rates of the fluid network model into byte totals and per-interval utilisation.
//
// Between two solver steps every flow's rate is constant, so integrating rate x step length is exact. The
// backend reports, for each closed step, the rate of every flow on every link it crosses; the meter splits a
// step that straddles an interval boundary proportionally. No SimGrid types here, so it is testable on its own.
#pragma once

#include <array>
#include <vector>

#include "core/backend/backend.hpp"
#include "sim/link_report.hpp"

namespace dualpath::sim {

class LinkMeter {
 public:
  // bandwidth[i] is link i's capacity (bytes/s); interval > 0 is the sampling period (seconds).
  LinkMeter(std::vector<double> bandwidth, double interval);

  // A flow of class cls ran at `rate` bytes/s on `link` during the step being accumulated.
  void add_rate(int link, TrafficClass cls, double rate);
  // Closes the step [t0, t1]: the rates added since the last call applied over it. t0 must equal the
  // previous call's t1 (or 0 for the first).
  void close_step(double t0, double t1);
  // Flushes the last (possibly partial) interval at end_time and fills totals and samples into report.
  void finish(double end_time, LinkReport& report);

  const std::vector<LinkSample>& samples() const { return samples_; }

 private:
  using PerClass = std::array<double, 2>;  // indexed by TrafficClass (Model = 0, Kv = 1)
  void emit_interval(double start, double end);
  void add_to_bucket(double dt);

  std::vector<double> bandwidth_;
  double interval_;
  std::vector<PerClass> step_rate_;   // rate per link during the open step
  std::vector<int> step_links_;       // links with a nonzero step_rate_ (sparse reset)
  std::vector<PerClass> bucket_;      // bytes per link in the current interval
  std::vector<int> bucket_links_;     // links with a nonzero bucket_
  std::vector<PerClass> total_;       // bytes per link over the run
  long long interval_index_ = 0;      // the interval bucket_ belongs to
  std::vector<LinkSample> samples_;
};

}  // namespace dualpath::sim
