#include "sim/fluid_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/link_meter.hpp"
#include "sim/maxmin.hpp"
#include "sim/qos.hpp"

namespace dualpath::sim {

namespace {

std::vector<double> capacities(const Fabric& f) {
  std::vector<double> c;
  for (const auto& l : f.links()) c.push_back(l.bandwidth);
  return c;
}

}  // namespace

struct FluidBackend::Impl {
  struct Flow {
    int id = -1;  // in the solver, whose link array points into route
    double rate = 0;
    Route route;
    double remaining = 0;  // bytes
    TrafficClass cls{};
    uint64_t seq = 0;
    Done done;
  };

  Qos qos;
  Fabric fabric;
  SimSpec spec;
  MaxMin maxmin;
  LinkMeter meter;
  LinkReport report;
  SimStats stats;
  EventQueue events;
  double clock = 0;

  std::vector<std::unique_ptr<Flow>> flows;  // running flows (stable addresses: the solver holds pointers)
  std::vector<std::unique_ptr<Flow>> spare;  // finished flows kept for reuse
  bool dirty = false;  // the set of running flows changed since the last solve
  bool ran = false;
  bool hit_limit = false;
  bool stop_requested = false;

  Impl(const Topology& topo, const Deployment& dep, const QosSpec& q, const SimSpec& s, const SimOptions& o)
      : qos(q),
        fabric(topo, dep),
        spec(s),
        maxmin(capacities(fabric)),
        meter(capacities(fabric), o.link_sample_interval) {
    report.links = fabric.links();
    report.interval = o.link_sample_interval;
  }

  void add_timer(double delay, Done done) {
    ++stats.timers;
    events.push(clock + delay, events.next_seq(), std::move(done));
  }

  void start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) {
    ++stats.transfers;
    const uint64_t seq = events.next_seq();
    // Whole bytes, as the SimGrid engine sends them.
    const double size = static_cast<double>(static_cast<uint64_t>(std::llround(bytes)));
    if (size == 0) {
      events.push(clock, seq, std::move(done));
      return;
    }
    stats.bytes += size;
    std::unique_ptr<Flow> f;
    if (spare.empty()) {
      f = std::make_unique<Flow>();
    } else {
      f = std::move(spare.back());
      spare.pop_back();
    }
    f->route = fabric.route(src, dst);
    f->id = maxmin.add(f->route.link.data(), f->route.n, 1.0 / qos.penalty(cls));
    f->remaining = size;
    f->cls = cls;
    f->seq = seq;
    f->done = std::move(done);
    flows.push_back(std::move(f));
    dirty = true;
  }

  void solve() {
    maxmin.solve();
    for (auto& f : flows) f->rate = maxmin.rate(f->id);
    dirty = false;
  }

  // What is left would take less than the clock's resolution (kTimeEps) at the flow's rate: rounding, not data.
  static bool done_sending(const Flow& f) { return f.remaining <= f.rate * kTimeEps; }

  // Moves the clock to t: every running flow sends rate x (t - clock); the ones with nothing left complete at t
  // plus their route latency, in start order (flows_ is kept in start order).
  void advance(double t) {
    ++stats.solver_steps;
    const double dt = t - clock;
    bool any_done = false;
    for (auto& f : flows) {
      const double rate = f->rate;
      for (int i = 0; i < f->route.n; ++i) meter.add_rate(f->route.link[static_cast<size_t>(i)], f->cls, rate);
      f->remaining -= rate * dt;
      if (done_sending(*f)) any_done = true;
    }
    meter.close_step(clock, t);
    clock = t;
    if (any_done) {
      size_t keep = 0;
      for (size_t i = 0; i < flows.size(); ++i) {
        Flow& f = *flows[i];
        if (done_sending(f)) {
          events.push(t + f.route.latency, f.seq, std::move(f.done));
          f.done = nullptr;
          maxmin.remove(f.id);
          spare.push_back(std::move(flows[i]));
        } else {
          flows[keep++] = std::move(flows[i]);
        }
      }
      flows.resize(keep);
      dirty = true;
    }
  }

  void drop_pending() {
    for (auto& f : flows) {
      f->done = nullptr;
      maxmin.remove(f->id);
    }
    flows.clear();
    events.clear();
  }

  void loop() {
    while (true) {
      if (stop_requested) {  // the engine ended the run (online stop rule): drop everything still pending
        drop_pending();
        return;
      }
      if (const uint64_t ran_now = events.run_due(clock)) {
        stats.callbacks += ran_now;
        continue;  // callbacks may have started work due now
      }
      if (flows.empty() && events.empty()) return;
      if (spec.time_limit > 0 && clock >= spec.time_limit - kTimeEps) {
        hit_limit = true;
        drop_pending();
        return;
      }
      if (dirty) solve();
      double next = std::numeric_limits<double>::infinity();
      for (const auto& f : flows) next = std::min(next, clock + f->remaining / f->rate);
      if (!events.empty()) next = std::min(next, events.next_time());
      if (spec.time_limit > 0) next = std::min(next, spec.time_limit);
      if (!(next >= clock)) throw std::logic_error("simulator: the native engine's clock would go backwards");
      advance(next);
      step_hook_now();
    }
  }

  std::function<void(double)> hook;
  void step_hook_now() const {
    if (hook) hook(clock);
  }
};

FluidBackend::FluidBackend(const Topology& topo, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
                           SimOptions options)
    : impl_(std::make_unique<Impl>(topo, dep, qos, spec, options)) {}

FluidBackend::~FluidBackend() = default;

void FluidBackend::run(Done start) {
  Impl& m = *impl_;
  if (m.ran) throw std::logic_error("simulator: run() can only be called once");
  m.ran = true;
  m.hook = [this](double t) { step_hook(t); };
  in_run_ = true;
  try {
    start();
    m.loop();
  } catch (...) {
    in_run_ = false;
    m.drop_pending();
    m.meter.finish(m.clock, m.report);
    throw;
  }
  in_run_ = false;
  m.meter.finish(m.clock, m.report);
}

bool FluidBackend::hit_time_limit() const { return impl_->hit_limit; }
bool FluidBackend::stopped_early() const { return impl_->stop_requested; }
void FluidBackend::stop() { impl_->stop_requested = true; }
double FluidBackend::now() const { return impl_->clock; }
const LinkReport& FluidBackend::links() const { return impl_->report; }
const SimStats& FluidBackend::stats() const { return impl_->stats; }
const Fabric& FluidBackend::fabric() const { return impl_->fabric; }
void FluidBackend::start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) {
  impl_->start_flow(src, dst, bytes, cls, std::move(done));
}
void FluidBackend::add_timer(double delay, Done done) { impl_->add_timer(delay, std::move(done)); }

}  // namespace dualpath::sim
