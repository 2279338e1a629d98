#include "sim/native/native_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/backend/interrupt.hpp"
#include "sim/event_queue.hpp"
#include "sim/link_meter.hpp"
#include "sim/meter_feed.hpp"
#include "sim/native/maxmin.hpp"
#include "sim/qos_weights.hpp"

namespace dualpath::sim {

namespace {

std::vector<double> capacities(const Fabric& f) {
  std::vector<double> c;
  for (const auto& l : f.links()) c.push_back(l.bandwidth);
  return c;
}

}  // namespace

struct NativeBackend::Impl {
  // A running flow. Its rate changes only when the solver re-solves its component; `remaining` is the bytes left
  // at time `since`, so progress is settled only when the rate changes, and `finish` is when its last byte leaves.
  struct Flow {
    int id = -1;  // in the solver, whose link array points into route
    double rate = 0;
    double remaining = 0;  // bytes, at `since`
    double since = 0;
    double finish = std::numeric_limits<double>::infinity();
    Route route;
    TrafficClass cls{};
    uint64_t seq = 0;
    Done done;
    int index = -1;      // in `flows`
    int group = -1;      // in `groups` when it is one of a group (`done` is then empty: the group's runs)
    int due_at = -1;     // its slot in `due` while it has a finish time (a rate > 0), else -1
  };

  Qos qos;
  Fabric fabric;
  SimSpec spec;
  MaxMin maxmin;
  LinkMeter meter;
  MeterFeed feed;  // the meter's calls, on this thread or on a worker (SimOptions::threads)
  LinkReport report;
  SimStats stats;
  EventQueue events;
  double clock = 0;

  std::vector<std::unique_ptr<Flow>> flows;  // running flows (stable addresses: see Flow::id and `due`)
  // The running flows with a rate, in a binary min-heap on (finish, seq) that knows each flow's slot, so a new
  // rate moves the flow within it and a flow that ends leaves it: no stale entries to skip or rebuild. (A heap of
  // (finish, stamp) records with stale entries skipped on top was 4-6% of a run in prune alone.) The order in which
  // completions are found is (finish, seq), as before.
  std::vector<Flow*> due;
  std::vector<std::unique_ptr<Flow>> spare;  // finished flows kept for reuse
  std::vector<Flow*> by_id;                  // solver id -> running flow
  // A flow group (start_flow_group): one callback when its last flow's would have run. A member's own callback
  // would have been queued at (its last byte + route latency, its start sequence number); the group's is queued
  // at the latest of those, in the event queue's (time, seq) order, once every member has completed, so it runs
  // exactly where the last member's would have. The members' callbacks were the caller's count-downs to that
  // one: the engine saves an event, and a clock advance, per member but the last.
  struct Group {
    int pending = 0;  // members still running
    double time = -1;  // the latest member callback (time, seq) so far
    uint64_t seq = 0;
    Done done;
  };
  std::vector<Group> groups;
  std::vector<int> free_groups;
  bool dirty = false;  // the set of running flows changed since the last solve
  bool ran = false;
  bool hit_limit = false;
  bool stop_requested = false;
  std::function<void(double)> hook;

  Impl(const Hardware& topo, const Deployment& dep, const QosSpec& q, const SimSpec& s, const SimOptions& o)
      : qos(q),
        fabric(topo, dep),
        spec(s),
        maxmin(capacities(fabric), {.keep_below_departures = s.departures == DepartureSolve::AboveDeparted,
                                    .keep_below_arrivals = s.arrivals == ArrivalSolve::AboveSaturation}),
        meter(capacities(fabric), o.link_sample_interval),
        feed(meter, o.threads) {
    report.links = fabric.links();
    report.interval = o.link_sample_interval;
  }

  void add_timer(double delay, Done done) {
    ++stats.timers;
    events.push(clock + delay, events.next_seq(), std::move(done));
  }

  // `group`: the flow is a member of that group (start_group) and `done` is empty.
  uint64_t start_flow(int src, int dst, double bytes, TrafficClass cls, Done done, int group = -1) {
    ++stats.transfers;
    const uint64_t seq = events.next_seq();
    // Whole bytes, as the SimGrid engine sends them.
    const double size = static_cast<double>(static_cast<uint64_t>(std::llround(bytes)));
    if (size == 0) {
      if (group >= 0) member_done(group, clock, seq);
      else events.push(clock, seq, std::move(done));
      return seq;
    }
    if (group >= 0) ++groups[static_cast<size_t>(group)].pending;
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
    f->rate = 0;
    f->remaining = size;
    f->since = clock;
    f->finish = std::numeric_limits<double>::infinity();
    f->cls = cls;
    f->seq = seq;
    f->done = std::move(done);
    f->group = group;
    if (by_id.size() <= static_cast<size_t>(f->id)) by_id.resize(static_cast<size_t>(f->id) + 1, nullptr);
    by_id[static_cast<size_t>(f->id)] = f.get();
    feed.change_rate(f->route.link.data(), f->route.n, cls, 0, +1);
    f->index = static_cast<int>(flows.size());
    flows.push_back(std::move(f));
    dirty = true;
    return seq;
  }

  void start_group(const std::vector<GroupFlow>& members, TrafficClass cls, Done done) {
    int gi;
    if (free_groups.empty()) {
      gi = static_cast<int>(groups.size());
      groups.emplace_back();
    } else {
      gi = free_groups.back();
      free_groups.pop_back();
    }
    groups[static_cast<size_t>(gi)] = Group{0, -1, 0, std::move(done)};
    for (const GroupFlow& m : members) start_flow(m.src, m.dst, m.bytes, cls, nullptr, gi);
    if (groups[static_cast<size_t>(gi)].pending == 0) group_done(gi);
  }

  // A member's callback would run at (time, seq): the group's runs at the latest.
  void member_done(int gi, double time, uint64_t seq) {
    Group& g = groups[static_cast<size_t>(gi)];
    if (time > g.time || (time == g.time && seq > g.seq)) g.time = time, g.seq = seq;
  }

  void group_done(int gi) {
    Group& g = groups[static_cast<size_t>(gi)];
    events.push(g.time, g.seq, std::move(g.done));
    g.done = nullptr;
    free_groups.push_back(gi);
  }

  // A fault stops a running flow: it leaves the solver without completing (rare: a linear search is fine).
  void cancel_flow(uint64_t seq) {
    for (const auto& f : flows)
      if (f->seq == seq) {
        f->done = nullptr;
        spare.push_back(retire(*f));
        dirty = true;
        return;
      }
  }

  void scale_link(int link, double factor) {
    maxmin.set_capacity(link, fabric.links()[static_cast<size_t>(link)].bandwidth * factor);
    dirty = true;
  }

  // Settles a flow's progress at the clock and gives it a new rate (also in the meter).
  void set_rate(Flow& f, double rate) {
    f.remaining -= f.rate * (clock - f.since);
    f.since = clock;
    feed.change_rate(f.route.link.data(), f.route.n, f.cls, rate - f.rate, 0);
    f.rate = rate;
    f.finish = clock + f.remaining / rate;
    if (f.due_at < 0) {
      f.due_at = static_cast<int>(due.size());
      due.push_back(&f);
    }
    sift_up(static_cast<size_t>(f.due_at));
    sift_down(static_cast<size_t>(f.due_at));
  }

  static bool due_before(const Flow* a, const Flow* b) {
    return a->finish < b->finish || (a->finish == b->finish && a->seq < b->seq);
  }
  void sift_up(size_t i) {
    Flow* f = due[i];
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!due_before(f, due[parent])) break;
      due[i] = due[parent];
      due[i]->due_at = static_cast<int>(i);
      i = parent;
    }
    due[i] = f;
    f->due_at = static_cast<int>(i);
  }
  void sift_down(size_t i) {
    Flow* f = due[i];
    const size_t n = due.size();
    while (true) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && due_before(due[c + 1], due[c])) ++c;
      if (!due_before(due[c], f)) break;
      due[i] = due[c];
      due[i]->due_at = static_cast<int>(i);
      i = c;
    }
    due[i] = f;
    f->due_at = static_cast<int>(i);
  }
  void leave_due(Flow& f) {
    if (f.due_at < 0) return;
    const auto i = static_cast<size_t>(f.due_at);
    Flow* last = due.back();
    due.pop_back();
    f.due_at = -1;
    if (last == &f) return;
    due[i] = last;
    last->due_at = static_cast<int>(i);
    sift_up(i);
    sift_down(static_cast<size_t>(last->due_at));
  }

  // Removes a running flow (completed or dropped) from the solver, the meter and `flows`.
  std::unique_ptr<Flow> retire(Flow& f) {
    feed.change_rate(f.route.link.data(), f.route.n, f.cls, -f.rate, -1);
    maxmin.remove(f.id);
    by_id[static_cast<size_t>(f.id)] = nullptr;
    leave_due(f);
    const auto i = static_cast<size_t>(f.index);
    std::unique_ptr<Flow> owned = std::move(flows[i]);
    if (i + 1 != flows.size()) {
      flows[i] = std::move(flows.back());
      flows[i]->index = static_cast<int>(i);
    }
    flows.pop_back();
    f.index = -1;
    return owned;
  }

  void solve() {
    maxmin.solve();
    if (const uint64_t n = maxmin.solved_flows()) {
      ++stats.solves;
      stats.resolved_flows += n;
      stats.max_resolved = std::max(stats.max_resolved, n);
    }
    for (int id : maxmin.solved()) {
      Flow& f = *by_id[static_cast<size_t>(id)];
      const double rate = maxmin.rate(id);
      if (rate != f.rate) set_rate(f, rate);
    }
    dirty = false;
  }

  // Moves the clock to t; the flows whose last byte has left by then (what is left would take less than the
  // clock's resolution, kTimeEps, at their rate: rounding, not data) complete at t plus their route latency.
  // Their callbacks run in start order whatever the order found here (the event queue orders by start).
  void advance(double t) {
    ++stats.solver_steps;
    feed.advance_to(t);
    clock = t;
    const uint64_t completed_before = stats.completions;
    while (true) {
      if (due.empty() || due.front()->finish > clock + kTimeEps) break;
      Flow& f = *due.front();
      if (f.group >= 0) {
        member_done(f.group, t + f.route.latency, f.seq);
        if (--groups[static_cast<size_t>(f.group)].pending == 0) group_done(f.group);
      } else {
        events.push(t + f.route.latency, f.seq, std::move(f.done));
      }
      f.done = nullptr;
      spare.push_back(retire(f));
      dirty = true;
      ++stats.completions;
    }
    if (stats.completions == completed_before) ++stats.idle_steps;
  }

  // Work still pending is dropped (time limit, stop rule, error); what the flows sent so far stays in the meter.
  void drop_pending() {
    while (!flows.empty()) {
      flows.back()->done = nullptr;
      retire(*flows.back());
    }
    due.clear();
    events.clear();
    groups.clear();
    free_groups.clear();
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
      double next = due.empty() ? std::numeric_limits<double>::infinity() : due.front()->finish;
      if (!events.empty()) next = std::min(next, events.next_time());
      if (spec.time_limit > 0) next = std::min(next, spec.time_limit);
      if (!(next >= clock)) throw std::logic_error("simulator: the native engine's clock would go backwards");
      check_horizon(next);
      check_interrupt();  // Ctrl-C from Python (core/backend/interrupt.hpp)
      advance(next);
      if (hook) hook(clock);
    }
  }
};

NativeBackend::NativeBackend(const Hardware& topo, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
                           SimOptions options)
    : impl_(std::make_unique<Impl>(topo, dep, qos, spec, options)) {}

NativeBackend::~NativeBackend() = default;

void NativeBackend::run(Done start) {
  Impl& m = *impl_;
  if (m.ran) throw std::logic_error("simulator: run() can only be called once");
  m.ran = true;
  m.hook = [this](double t) { step_hook(t); };
  in_run_ = true;
  m.feed.start();
  try {
    start();
    m.loop();
  } catch (...) {
    in_run_ = false;
    m.feed.advance_to(m.clock);
    m.drop_pending();
    m.feed.drain(false);  // this run's own error is the one to report
    m.meter.finish(m.clock, m.report);
    throw;
  }
  in_run_ = false;
  m.feed.drain();
  m.meter.finish(m.clock, m.report);
}

bool NativeBackend::hit_time_limit() const { return impl_->hit_limit; }
bool NativeBackend::stopped_early() const { return impl_->stop_requested; }
void NativeBackend::stop() { impl_->stop_requested = true; }
double NativeBackend::now() const { return impl_->clock; }
const LinkReport& NativeBackend::links() const { return impl_->report; }
const SimStats& NativeBackend::stats() const { return impl_->stats; }
const Fabric& NativeBackend::fabric() const { return impl_->fabric; }
LinkMeter& NativeBackend::meter() { return impl_->meter; }
uint64_t NativeBackend::start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) {
  return impl_->start_flow(src, dst, bytes, cls, std::move(done));
}
void NativeBackend::start_flow_group(const std::vector<GroupFlow>& flows, TrafficClass cls, Done done) {
  impl_->start_group(flows, cls, std::move(done));
}
void NativeBackend::cancel_flow(uint64_t handle) { impl_->cancel_flow(handle); }
void NativeBackend::scale_link(int link, double factor) { impl_->scale_link(link, factor); }
void NativeBackend::add_timer(double delay, Done done) { impl_->add_timer(delay, std::move(done)); }

}  // namespace dualpath::sim
