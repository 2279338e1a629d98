// Integrates per-link rates of the fluid network model into byte totals and per-interval utilisation.
//
// Between two solver steps every flow's rate is constant, so integrating rate x step length is exact. Two ways to
// feed it (one per meter, not mixed):
//  - per step (SimGrid engine): for each closed step, the rate of every flow on every link it crosses
//    (add_rate), then close_step; a step that straddles an interval boundary is split proportionally;
//  - held rates (native engine): a link's rate per class is held until it changes (change_rate), and the meter
//    integrates a link only when its rate changes or an interval ends (advance_to), so a step costs nothing for
//    links whose rate did not change.
// No SimGrid types here, so it is testable on its own.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/run/link_report.hpp"

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
  // Held rates. Moves the meter's clock to `now` (>= its previous value), closing the intervals that ended.
  void advance_to(double now);
  // At the meter's clock, a flow of class cls starts (flows +1), ends (flows -1) or changes rate (flows 0) on
  // `link`: the link's held rate changes by delta. A link with no flows left holds exactly 0.
  void change_rate(int link, TrafficClass cls, double delta, int flows);

  // Flushes the last (possibly partial) interval at end_time and fills totals and samples into report.
  void finish(double end_time, LinkReport& report);

  const std::vector<LinkSample>& samples() const { return samples_; }
  // Samples go to `sink` as their intervals close instead of into the report (set before the run).
  void set_sample_sink(LinkSampleSink sink) { sink_ = std::move(sink); }

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
  LinkSampleSink sink_;

  // Held-rate mode.
  struct Held {
    PerClass rate{0, 0};
    std::array<int, 2> flows{0, 0};
    double since = 0;  // the rate has been integrated up to here
    int active = -1;   // index in active_, -1 when the link carries nothing
  };
  void integrate(int link, double to);
  std::vector<Held> held_;
  std::vector<int> active_;  // links with flows
  double clock_ = 0;
};

}  // namespace dualpath::sim
