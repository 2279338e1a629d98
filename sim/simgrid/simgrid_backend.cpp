#include "sim/simgrid/simgrid_backend.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/simgrid/simgrid_setup.hpp"
#include "sim/event_queue.hpp"
#include "sim/link_meter.hpp"
#include "sim/simgrid/platform.hpp"
#include "sim/qos_weights.hpp"
#include "sim/simgrid/qos_penalty.hpp"

namespace dualpath::sim {

namespace sg4 = simgrid::s4u;

namespace {

// Guards against a livelock: this many consecutive wake-ups with neither a callback nor a clock advance.
constexpr int kMaxIdleWakeups = 1000;

}  // namespace

struct SimgridBackend::Impl {
  struct Flow {
    FlowHandle handle;  // invalid once the flow finished or was cancelled
    Route route;
    TrafficClass cls{};
    uint64_t seq = 0;
    Done done;
    int pending = -1;  // index in pending_ / pending_flow_
  };

  Qos qos;  // first: an invalid QoS spec throws before the process's one engine is created
  std::unique_ptr<sg4::Engine> engine;
  Platform platform;
  SimSpec spec;
  LinkMeter meter;
  LinkReport report;
  SimStats stats;

  EventQueue events;                        // timers and completions
  std::vector<Flow> flows;                  // slots, reused through free_flows
  std::vector<int> free_flows;
  std::vector<sg4::ActivityPtr> pending;    // running comms, what the driver waits on
  std::vector<int> pending_flow;            // flow slot of pending[i]
  std::vector<int> finished;                // flow slots whose comm finished in the last solver step(s)
  std::function<void(double)> step_hook;   // Simulator::step_hook of the owner
  double last_step_end = 0;
  bool ran = false;
  bool hit_limit = false;
  bool stop_requested = false;
  std::exception_ptr error;

  Impl(const Hardware& topo, const Deployment& dep, const QosSpec& q, const SimSpec& s, const SimOptions& o)
      : qos(q),
        engine((Fabric::validate(topo, dep), make_engine(o.stack_kib, o.full_lmm_update))),
        platform(topo, dep),
        spec(s),
        meter(link_bandwidths(platform), o.link_sample_interval) {
    report.links = platform.fabric().links();
    report.interval = o.link_sample_interval;
    // Static signal; fine because there is one engine (and one Impl) per process.
    sg4::Engine::on_time_advance_cb([this](double) { on_step(); });
  }

  static std::vector<double> link_bandwidths(const Platform& p) {
    std::vector<double> bw;
    for (const auto& l : p.fabric().links()) bw.push_back(l.bandwidth);
    return bw;
  }

  // Called by SimGrid after each solver step, before any actor runs: every pending flow ran at its solved rate
  // during the step. Flows that finished in it are collected here, while their kernel action still exists.
  void on_step() {
    ++stats.solver_steps;
    for (int slot : pending_flow) {
      Flow& f = flows[static_cast<size_t>(slot)];
      if (!f.handle.valid()) continue;
      const double rate = f.handle.rate();
      for (int i = 0; i < f.route.n; ++i) meter.add_rate(f.route.link[static_cast<size_t>(i)], f.cls, rate);
      if (f.handle.finished()) {
        f.handle.reset();
        finished.push_back(slot);
      }
    }
    const double t = sg4::Engine::get_clock();
    meter.close_step(last_step_end, t);
    last_step_end = t;
    if (step_hook) step_hook(t);
  }

  void add_timer(double delay, Done done) {
    ++stats.timers;
    events.push(sg4::Engine::get_clock() + delay, events.next_seq(), std::move(done));
  }

  uint64_t start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) {
    ++stats.transfers;
    const uint64_t seq = events.next_seq();
    const auto size = static_cast<uint64_t>(std::llround(bytes));
    if (size == 0) {
      events.push(sg4::Engine::get_clock(), seq, std::move(done));
      return seq;
    }
    stats.bytes += static_cast<double>(size);
    sg4::CommPtr comm = sg4::Comm::sendto_async(platform.host(src), platform.host(dst), size);
    int slot;
    if (free_flows.empty()) {
      slot = static_cast<int>(flows.size());
      flows.emplace_back();
    } else {
      slot = free_flows.back();
      free_flows.pop_back();
    }
    Flow& f = flows[static_cast<size_t>(slot)];
    f.handle = FlowHandle::start(comm, qos.penalty(cls));
    f.route = platform.fabric().route(src, dst);
    f.cls = cls;
    f.seq = seq;
    f.done = std::move(done);
    f.pending = static_cast<int>(pending.size());
    pending.push_back(comm);
    pending_flow.push_back(slot);
    return seq;
  }

  // A fault stops a running comm without completing it. One that finished in the last step is left to
  // collect_finished (the caller keeps its callback from running).
  void cancel_flow(uint64_t seq) {
    for (size_t i = 0; i < pending_flow.size(); ++i) {
      Flow& f = flows[static_cast<size_t>(pending_flow[i])];
      if (f.seq != seq || !f.handle.valid()) continue;
      const int slot = pending_flow[i];
      f.handle.reset();
      pending[i]->cancel();
      remove_pending(static_cast<int>(i));
      f.pending = -1;
      f.done = nullptr;
      free_flows.push_back(slot);
      return;
    }
  }

  void remove_pending(int index) {
    const auto i = static_cast<size_t>(index);
    const int last = static_cast<int>(pending.size()) - 1;
    if (index != last) {
      pending[i] = std::move(pending.back());
      pending_flow[i] = pending_flow.back();
      flows[static_cast<size_t>(pending_flow[i])].pending = index;
    }
    pending.pop_back();
    pending_flow.pop_back();
  }

  // Finished comms become completion events at now + route latency, in their start order.
  void collect_finished() {
    const double now = sg4::Engine::get_clock();
    for (int slot : finished) {
      Flow& f = flows[static_cast<size_t>(slot)];
      remove_pending(f.pending);
      f.pending = -1;
      events.push(now + f.route.latency, f.seq, std::move(f.done));
      f.done = nullptr;
      free_flows.push_back(slot);
    }
    finished.clear();
  }

  // Drops everything still pending (time limit or error): comms are cancelled, timers forgotten.
  void drop_pending() {
    for (size_t i = 0; i < pending.size(); ++i) {
      flows[static_cast<size_t>(pending_flow[i])].handle.reset();
      pending[i]->cancel();
    }
    pending.clear();
    pending_flow.clear();
    finished.clear();
    events.clear();
  }

  void loop() {
    int idle_wakeups = 0;
    while (true) {
      if (stop_requested) {  // the engine ended the run (online stop rule): drop everything still pending
        drop_pending();
        return;
      }
      collect_finished();
      const double now = sg4::Engine::get_clock();
      if (const uint64_t ran = events.run_due(now)) {
        stats.callbacks += ran;
        idle_wakeups = 0;
        continue;  // callbacks may have started work due now
      }
      if (pending.empty() && events.empty()) return;
      if (spec.time_limit > 0 && now >= spec.time_limit - kTimeEps) {
        hit_limit = true;
        drop_pending();
        return;
      }
      double deadline = events.empty() ? -1.0 : events.next_time();
      if (spec.time_limit > 0) deadline = deadline < 0 ? spec.time_limit : std::min(deadline, spec.time_limit);
      Simulator::check_horizon(deadline);  // before SimGrid sleeps towards it
      const double timeout = deadline < 0 ? -1.0 : std::max(0.0, deadline - now);
      if (pending.empty())
        sg4::this_actor::sleep_for(timeout);
      else
        sg4::Activity::wait_any_for(pending, timeout);
      Simulator::check_horizon(sg4::Engine::get_clock());
      if (finished.empty() && sg4::Engine::get_clock() == now) {
        if (++idle_wakeups > kMaxIdleWakeups)
          throw std::runtime_error("simulator: no progress (the driver keeps waking with nothing to do)");
      } else {
        idle_wakeups = 0;
      }
    }
  }

  void drive(const Done& start, bool& in_run) {
    in_run = true;
    try {
      start();
      loop();
    } catch (const simgrid::ForcefulKillException&) {
      throw;  // SimGrid tearing the actor down: let it unwind
    } catch (...) {
      error = std::current_exception();
      drop_pending();
    }
    in_run = false;
  }
};

SimgridBackend::SimgridBackend(const Hardware& topo, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
                       SimOptions options)
    : impl_(std::make_unique<Impl>(topo, dep, qos, spec, options)) {}

SimgridBackend::~SimgridBackend() = default;

void SimgridBackend::run(Done start) {
  Impl& m = *impl_;
  if (m.ran) throw std::logic_error("simulator: SimgridBackend::run() can only be called once");
  m.ran = true;
  m.step_hook = [this](double t) { step_hook(t); };
  sg4::Actor::create("driver", m.platform.control_host(),
                     [this, &m, start = std::move(start)]() { m.drive(start, in_run_); });
  m.engine->run();
  m.meter.finish(sg4::Engine::get_clock(), m.report);
  if (m.error) std::rethrow_exception(m.error);
}

bool SimgridBackend::hit_time_limit() const { return impl_->hit_limit; }
bool SimgridBackend::stopped_early() const { return impl_->stop_requested; }
void SimgridBackend::stop() { impl_->stop_requested = true; }
double SimgridBackend::now() const { return sg4::Engine::get_clock(); }

const Fabric& SimgridBackend::fabric() const { return impl_->platform.fabric(); }
uint64_t SimgridBackend::start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) {
  return impl_->start_flow(src, dst, bytes, cls, std::move(done));
}
void SimgridBackend::cancel_flow(uint64_t handle) { impl_->cancel_flow(handle); }
void SimgridBackend::scale_link(int link, double factor) {
  impl_->platform.link(link)->set_bandwidth(impl_->platform.fabric().links()[static_cast<size_t>(link)].bandwidth *
                                            factor);
}
void SimgridBackend::add_timer(double delay, Done done) { impl_->add_timer(delay, std::move(done)); }

const LinkReport& SimgridBackend::links() const { return impl_->report; }
const SimStats& SimgridBackend::stats() const { return impl_->stats; }
LinkMeter& SimgridBackend::meter() { return impl_->meter; }

}  // namespace dualpath::sim
