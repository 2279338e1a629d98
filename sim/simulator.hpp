// A simulated cluster: the Backend the core runs on, with one of two network engines behind it (sim.engine).
//  - "simgrid" (sim/simgrid/simgrid_backend.hpp): SimGrid 3.32's max-min (LMM) solver, the engine of record;
//  - "native" (sim/native/native_backend.hpp, the default): dualpath's own weighted max-min fluid solver
//    (sim/native/maxmin.hpp) over the same fabric, with no SimGrid actors, simcalls or per-flow kernel objects; SimGrid's results to
//    ~1e-12 (tests/cli/sim_engines.sh) at 4-7x less wall time per run.
// Both share the fabric (sim/fabric.hpp), the event queue (sim/event_queue.hpp), the link meter and the checks
// below, so they differ only in how flow rates are solved and time advances.
//
// Execution model (both engines). run() calls `start` at t = 0, then loops: find the next transfer completion or
// timer deadline, advance the clock to it, run the callbacks that are due, repeat until nothing is pending. All
// core code runs single-threaded inside run().
//  - Transfers are fluid flows over their route's links, shared by weighted max-min (weights per traffic class,
//    sim/qos_weights.hpp). A transfer's route latency is paid after its last byte: the flow occupies its links for
//    bytes/rate, and `done` fires `latency` later. 1 GB over a free 50 GB/s SNIC with nic_latency l completes at
//    20 ms + l (+ storage latency for storage).
//  - compute(gpu, work) is a timer of work.seconds. The cost model already predicts the time, one engine runs
//    per GPU, and the core serialises a GPU's work, so there is nothing to share.
//  - Zero-byte transfers complete through a zero-delay timer, never synchronously inside the call.
//  - Callbacks due at the same simulated time run in the order their work was started.
//  - Work may only be started from inside run() (the start callback or a completion callback).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config/units.hpp"
#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "sim/fabric.hpp"
#include "core/run/link_report.hpp"
#include "sim/link_meter.hpp"

namespace dualpath::sim {

// Knobs of the simulator itself (not of the modelled system).
struct SimOptions {
  double link_sample_interval = 1.0;  // seconds per links.csv interval (OutputSpec::link_sample_interval)
  int stack_kib = 8192;               // SimGrid: the driver actor's stack; the core's callbacks run on it
  bool full_lmm_update = false;       // SimGrid: network/optim:Full instead of Lazy (SimSpec::lmm_update)
  // Native engine: 2 or more runs the link meter on a worker thread (sim/meter_feed.hpp; the same outputs, byte for
  // byte); 1 runs everything on the calling thread. SimGrid runs on one thread (make_simulator refuses more).
  int threads = 1;
};

// Counters for budgeting and progress reports.
struct SimStats {
  uint64_t transfers = 0;       // transfers and storage reads/writes started (zero-byte ones included)
  uint64_t timers = 0;          // timer() and compute() calls
  uint64_t callbacks = 0;       // completion callbacks run
  uint64_t solver_steps = 0;    // clock advances (each ends with the flow rates of the step solved)
  double bytes = 0;             // bytes moved by transfers
  // The event census of docs/performance.md, kept by the native engine (SimGrid leaves them 0): what an exact
  // speed-up must reduce, and how the solver's work grows with the cluster (issue 63).
  uint64_t completions = 0;      // flows that completed (a group's members each count)
  uint64_t idle_steps = 0;       // clock advances that completed no flow (callbacks and timers only)
  uint64_t solves = 0;           // solver calls that re-solved at least one flow
  uint64_t resolved_flows = 0;   // flows re-solved over all calls (a flow counts once per call)
  uint64_t max_resolved = 0;     // the most flows one call re-solved: the largest coupled component set
};

// Simulated seconds (~31.7 years) past which a run is stopped as unable to progress; see check_horizon.
inline constexpr double kHorizonSeconds = units::kMaxDurationSeconds;

class Simulator : public Backend {
 public:
  // Runs the simulation: `start` at t = 0, then until no work is pending or SimSpec::time_limit is reached
  // (work still pending then is dropped, its callbacks never run). Callable once. An exception thrown by a
  // callback stops the simulation and is rethrown here.
  virtual void run(Done start) = 0;
  // Whether run() stopped at SimSpec::time_limit with work still pending.
  virtual bool hit_time_limit() const = 0;
  // Whether run() ended because the engine called stop() (the online stop rule).
  virtual bool stopped_early() const = 0;
  // Per-link totals and utilisation samples; link descriptions are available before run(), the rest after.
  virtual const LinkReport& links() const = 0;
  virtual const SimStats& stats() const = 0;
  // links.csv's samples to `sink` as they close (not kept in links().samples); set before run().
  void set_link_sample_sink(LinkSampleSink sink) { meter().set_sample_sink(std::move(sink)); }
  // Called with the clock after every clock advance (progress lines). It must not start work.
  void set_step_hook(std::function<void(double)> hook) { step_hook_ = std::move(hook); }
  bool can_stop() const override { return true; }

  // Argument checks and the mapping of places to fabric endpoints, the same for both engines; the flows and
  // timers they start go to start_flow / add_timer. Throw std::invalid_argument on a bad argument.
  using Backend::storage_read;
  using Backend::storage_write;
  void storage_read(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) final;
  void storage_read_to_hbm(int gpu, const BlockRanges& blocks, double bytes, Done done, Failed failed) final;
  void storage_write(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) final;
  void transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) final;
  void transfer_group(Hop hop, const std::vector<GroupPart>& parts, TrafficClass cls, Done done) final;
  void compute(int gpu, const ComputeWork& work, Done done) final;
  void timer(double delay, Done done) final;
  // Faults: link bandwidths scaled in the engine's solver (utilisation in links.csv stays relative to the
  // nominal bandwidth), and storage I/O in flight failed by cancelling its flows.
  bool can_inject_faults() const override { return true; }
  void track_storage_io() override { track_io_ = true; }
  void scale_snic(int node, double factor) override;
  void scale_storage(double factor) override;
  void fail_storage_io(int node, const std::string& why) override;

 protected:
  virtual const Fabric& fabric() const = 0;
  virtual LinkMeter& meter() = 0;
  // A flow of `bytes` (finite, >= 0) from fabric endpoint src to dst; `done` is not empty. Returns a handle for
  // cancel_flow.
  virtual uint64_t start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) = 0;
  // Flows started together whose one `done` runs when the last of them would have run its own (not empty; each
  // as start_flow's). This default starts each with start_flow and counts them down (the SimGrid engine); the
  // native engine overrides it with one completion event per group.
  struct GroupFlow {
    int src, dst;
    double bytes;
  };
  virtual void start_flow_group(const std::vector<GroupFlow>& flows, TrafficClass cls, Done done);
  // Stops a running flow without running its `done` (nothing happens if it already finished).
  virtual void cancel_flow(uint64_t handle) = 0;
  // Sets fabric link `link` to `factor` (> 0) x its nominal bandwidth; running flows get new rates.
  virtual void scale_link(int link, double factor) = 0;
  // A timer `delay` (finite, >= 0) seconds from now; `done` is not empty.
  virtual void add_timer(double delay, Done done) = 0;
  void step_hook(double now) const {
    if (step_hook_) step_hook_(now);
  }
  // Stops a run whose clock would pass kHorizonSeconds (NoProgressError, exit 1): no agent workload lasts 30
  // years, so such a jump comes from a duration in the scenario that cannot work (a think time, latency or
  // period of 1e15 s), and the time-binned reports sized by it would exhaust memory. `next` is the time the
  // engine is about to reach.
  static void check_horizon(double next);
  // Set by the engine while run() is running callbacks: work may only be started then.
  bool in_run_ = false;

 private:
  void require_running() const;
  uint64_t transfer_checked(int src, int dst, double bytes, TrafficClass cls, Done done);
  // A transfer's fabric endpoints (source, destination), after the checks every transfer gets.
  std::pair<int, int> transfer_ends(Hop hop, Place src, Place dst) const;
  void storage_io(int node, int src, int dst, double bytes, Done done, Failed failed);
  std::function<void(double)> step_hook_;
  // Storage I/O in flight per node, kept once track_storage_io() was called (runs with faults only): the flow,
  // whether it may still complete, and what to call when a fault fails it.
  struct StorageIo {
    uint64_t key = 0, flow = 0;
    std::shared_ptr<bool> live;
    Failed failed;
  };
  bool track_io_ = false;
  uint64_t io_keys_ = 0;
  std::vector<std::vector<StorageIo>> io_;
};

// Creates the simulator of `engine` (sim.engine). Throws std::invalid_argument on an invalid topology, deployment or
// QoS spec. Only one SimGrid simulator may exist per process (SimGrid's engine is a singleton; a second throws
// std::logic_error).
std::unique_ptr<Simulator> make_simulator(NetworkEngine engine, const Hardware& hw, const Deployment& dep,
                                          const QosSpec& qos, const SimSpec& spec, const SimOptions& options = {});

}  // namespace dualpath::sim
