#include "sim/sim_backend.hpp"

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

#include "sim/engine.hpp"
#include "sim/link_meter.hpp"
#include "sim/platform.hpp"
#include "sim/qos.hpp"

namespace dualpath::sim {

namespace sg4 = simgrid::s4u;

namespace {

// Deadlines within this many seconds of the clock are due. SimGrid's own time precision is 1e-9 s, and the
// clock reached through a timeout can differ from the requested date by rounding.
constexpr double kTimeEps = 1e-9;
// Guards against a livelock: this many consecutive wake-ups with neither a callback nor a clock advance.
constexpr int kMaxIdleWakeups = 1000;
// Guards against callbacks re-arming zero-delay work forever: callbacks run without the clock advancing.
constexpr uint64_t kMaxCallbacksAtOneInstant = 100'000'000;

struct Event {
  double time;
  uint64_t seq;
  Done done;
};
// Min-heap order on (time, seq).
bool later(const Event& a, const Event& b) { return a.time > b.time || (a.time == b.time && a.seq > b.seq); }

void require(bool ok, const std::string& msg) {
  if (!ok) throw std::invalid_argument("simulator: " + msg);
}

}  // namespace

struct SimBackend::Impl {
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

  std::vector<Event> heap;                  // timers and completions, ordered by later()
  std::vector<Flow> flows;                  // slots, reused through free_flows
  std::vector<int> free_flows;
  std::vector<sg4::ActivityPtr> pending;    // running comms, what the driver waits on
  std::vector<int> pending_flow;            // flow slot of pending[i]
  std::vector<int> finished;                // flow slots whose comm finished in the last solver step(s)
  uint64_t next_seq = 0;
  double last_step_end = 0;
  bool in_driver = false;
  bool ran = false;
  bool hit_limit = false;
  bool stop_requested = false;
  std::exception_ptr error;

  Impl(const Topology& topo, const Deployment& dep, const QosSpec& q, const SimSpec& s, const SimOptions& o)
      : qos(q),
        engine((Platform::validate(topo, dep), make_engine(o.stack_kib, o.full_lmm_update))),
        platform(topo, dep),
        spec(s),
        meter(link_bandwidths(platform), o.link_sample_interval) {
    report.links = platform.links();
    report.interval = o.link_sample_interval;
    // Static signal; fine because there is one engine (and one Impl) per process.
    sg4::Engine::on_time_advance_cb([this](double) { on_step(); });
  }

  static std::vector<double> link_bandwidths(const Platform& p) {
    std::vector<double> bw;
    for (const auto& l : p.links()) bw.push_back(l.bandwidth);
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
  }

  void push(double time, uint64_t seq, Done done) {
    heap.push_back(Event{time, seq, std::move(done)});
    std::push_heap(heap.begin(), heap.end(), later);
  }

  void require_driver() const {
    if (!in_driver)
      throw std::logic_error("simulator: work can only be started from run()'s start or completion callbacks");
  }

  void add_timer(double delay, Done done) {
    require_driver();
    require(std::isfinite(delay) && delay >= 0, "timer delay must be a finite number >= 0");
    require(static_cast<bool>(done), "empty completion callback");
    ++stats.timers;
    push(sg4::Engine::get_clock() + delay, next_seq++, std::move(done));
  }

  void start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) {
    require_driver();
    require(std::isfinite(bytes) && bytes >= 0, "transfer size must be a finite number >= 0");
    require(static_cast<bool>(done), "empty completion callback");
    ++stats.transfers;
    const uint64_t seq = next_seq++;
    const auto size = static_cast<uint64_t>(std::llround(bytes));
    if (size == 0) {
      push(sg4::Engine::get_clock(), seq, std::move(done));
      return;
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
    f.route = platform.route(src, dst);
    f.cls = cls;
    f.seq = seq;
    f.done = std::move(done);
    f.pending = static_cast<int>(pending.size());
    pending.push_back(comm);
    pending_flow.push_back(slot);
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
      push(now + f.route.latency, f.seq, std::move(f.done));
      f.done = nullptr;
      free_flows.push_back(slot);
    }
    finished.clear();
  }

  // Runs every due event in (time, seq) order, including ones the callbacks add for the same instant.
  bool run_due(double now) {
    bool any = false;
    while (!heap.empty() && heap.front().time <= now + kTimeEps) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Done done = std::move(heap.back().done);
      heap.pop_back();
      ++stats.callbacks;
      done();
      any = true;
    }
    return any;
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
    heap.clear();
  }

  void loop() {
    int idle_wakeups = 0;
    uint64_t callbacks_at_instant = 0;
    double instant = -1;
    while (true) {
      if (stop_requested) {  // the engine ended the run (online stop rule): drop everything still pending
        drop_pending();
        return;
      }
      collect_finished();
      const double now = sg4::Engine::get_clock();
      const uint64_t before = stats.callbacks;
      if (run_due(now)) {
        idle_wakeups = 0;
        if (now != instant) {
          instant = now;
          callbacks_at_instant = 0;
        }
        callbacks_at_instant += stats.callbacks - before;
        if (callbacks_at_instant > kMaxCallbacksAtOneInstant)
          throw std::runtime_error("simulator: callbacks keep starting zero-time work; simulated time is stuck");
        continue;  // callbacks may have started work due now
      }
      if (pending.empty() && heap.empty()) return;
      if (spec.time_limit > 0 && now >= spec.time_limit - kTimeEps) {
        hit_limit = true;
        drop_pending();
        return;
      }
      double deadline = heap.empty() ? -1.0 : heap.front().time;
      if (spec.time_limit > 0) deadline = deadline < 0 ? spec.time_limit : std::min(deadline, spec.time_limit);
      const double timeout = deadline < 0 ? -1.0 : std::max(0.0, deadline - now);
      if (pending.empty())
        sg4::this_actor::sleep_for(timeout);
      else
        sg4::Activity::wait_any_for(pending, timeout);
      if (finished.empty() && sg4::Engine::get_clock() == now) {
        if (++idle_wakeups > kMaxIdleWakeups)
          throw std::runtime_error("simulator: no progress (the driver keeps waking with nothing to do)");
      } else {
        idle_wakeups = 0;
      }
    }
  }

  void drive(const Done& start) {
    in_driver = true;
    try {
      start();
      loop();
    } catch (const simgrid::ForcefulKillException&) {
      throw;  // SimGrid tearing the actor down: let it unwind
    } catch (...) {
      error = std::current_exception();
      drop_pending();
    }
    in_driver = false;
  }
};

SimBackend::SimBackend(const Topology& topo, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
                       SimOptions options)
    : impl_(std::make_unique<Impl>(topo, dep, qos, spec, options)) {}

SimBackend::~SimBackend() = default;

void SimBackend::run(Done start) {
  Impl& m = *impl_;
  if (m.ran) throw std::logic_error("simulator: SimBackend::run() can only be called once");
  m.ran = true;
  sg4::Actor::create("driver", m.platform.control_host(), [&m, start = std::move(start)]() { m.drive(start); });
  m.engine->run();
  m.meter.finish(sg4::Engine::get_clock(), m.report);
  if (m.error) std::rethrow_exception(m.error);
}

bool SimBackend::hit_time_limit() const { return impl_->hit_limit; }
bool SimBackend::stopped_early() const { return impl_->stop_requested; }
void SimBackend::stop() { impl_->stop_requested = true; }
double SimBackend::now() const { return sg4::Engine::get_clock(); }

void SimBackend::storage_read(int node, const BlockRanges&, double bytes, Done done, Failed) {
  const Platform& p = impl_->platform;
  require(node >= 0 && node < p.nodes(), "storage_read: node " + std::to_string(node) + " out of range");
  impl_->start_flow(p.storage(p.server_of(node)), p.sdram(node), bytes, TrafficClass::Kv, std::move(done));
}

void SimBackend::storage_write(int node, const BlockRanges&, double bytes, Done done) {
  const Platform& p = impl_->platform;
  require(node >= 0 && node < p.nodes(), "storage_write: node " + std::to_string(node) + " out of range");
  impl_->start_flow(p.sdram(node), p.storage(p.server_of(node)), bytes, TrafficClass::Kv, std::move(done));
}

void SimBackend::transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) {
  const Platform& p = impl_->platform;
  auto endpoint = [&p](Place pl) {
    require(pl.gpu >= 0 && pl.gpu < p.gpus(), "transfer: gpu " + std::to_string(pl.gpu) + " out of range");
    return pl.loc == Loc::Hbm ? p.hbm(pl.gpu) : p.dram(pl.gpu);
  };
  const int s = endpoint(src);
  const int d = endpoint(dst);
  require(s != d, "transfer: source and destination are the same memory");
  // The hop names what the core believes it is moving; a mismatch with the places is a core bug.
  const bool from_hbm = src.loc == Loc::Hbm, to_hbm = dst.loc == Loc::Hbm;
  switch (hop) {
    case Hop::H2D: require(!from_hbm && to_hbm && src.gpu == dst.gpu, "H2D must be DRAM -> HBM of one GPU"); break;
    case Hop::D2H: require(from_hbm && !to_hbm && src.gpu == dst.gpu, "D2H must be HBM -> DRAM of one GPU"); break;
    case Hop::HbmToRemoteDram: require(from_hbm && !to_hbm, "HbmToRemoteDram must be HBM -> DRAM"); break;
    case Hop::RemoteDramToHbm: require(!from_hbm && to_hbm, "RemoteDramToHbm must be DRAM -> HBM"); break;
    case Hop::Collective: require(from_hbm && to_hbm, "Collective must be HBM -> HBM"); break;
  }
  impl_->start_flow(s, d, bytes, cls, std::move(done));
}

void SimBackend::compute(int gpu, const ComputeWork& work, Done done) {
  require(gpu >= 0 && gpu < impl_->platform.gpus(), "compute: gpu " + std::to_string(gpu) + " out of range");
  impl_->add_timer(work.seconds, std::move(done));
}

void SimBackend::timer(double delay, Done done) { impl_->add_timer(delay, std::move(done)); }

const LinkReport& SimBackend::links() const { return impl_->report; }
const SimStats& SimBackend::stats() const { return impl_->stats; }

}  // namespace dualpath::sim
