// The SimGrid body of dualpath: a Backend whose transfers are fluid max-min flows over the platform of
// platform.hpp, with CNIC QoS (qos.hpp) and exact per-link accounting (link_meter.hpp).
//
// Execution model. run() starts SimGrid with ONE long-lived driver actor. It calls `start` at t = 0, then loops:
// wait for the next completion among the running comms or the next timer deadline, run the callbacks that are
// due, repeat until nothing is pending. All core code runs on that actor, single-threaded.
//  - Transfers are one-sided Comm::sendto_async between endpoint hosts; no actor per transfer.
//  - A transfer's route latency (platform.hpp) is paid after its last byte: the flow occupies its links for
//    bytes/rate, and `done` fires `latency` later, as the last byte reaches the far end of the route.
//    1 GB over a free 50 GB/s SNIC with nic_latency l completes at 20 ms + l (+ storage latency for storage).
//  - compute(gpu, work) is a timer of work.seconds. The cost model already predicts the time, one engine runs
//    per GPU, and the core serialises a GPU's work, so there is nothing for SimGrid to share; a CPU model would
//    only add solver events. HBM bandwidth is inside the cost model's prediction.
//  - Zero-byte transfers complete through a zero-delay timer, never synchronously inside the call.
//  - Callbacks due at the same simulated time run in the order their work was started (a global sequence
//    number), so identical inputs give identical callback orders and byte-identical outputs.
//  - Work may only be started from inside run() (the start callback or a completion callback).
#pragma once

#include <cstdint>
#include <memory>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "sim/link_report.hpp"

namespace dualpath::sim {

// Knobs of the simulator itself (not of the modelled system).
struct SimOptions {
  double link_sample_interval = 1.0;  // seconds per links.csv interval (OutputSpec::link_sample_interval)
  int stack_kib = 8192;               // the driver actor's stack; the core's callbacks run on it
  bool full_lmm_update = false;       // SimGrid network/optim:Full instead of Lazy (SimSpec::lmm_update)
};

// Counters for budgeting and progress reports.
struct SimStats {
  uint64_t transfers = 0;       // transfers and storage reads/writes started (zero-byte ones included)
  uint64_t timers = 0;          // timer() and compute() calls
  uint64_t callbacks = 0;       // completion callbacks run
  uint64_t solver_steps = 0;    // SimGrid time advances
  double bytes = 0;             // bytes moved by transfers
};

class SimBackend final : public Backend {
 public:
  // Creates the SimGrid engine and the platform. Only one SimBackend may ever exist in a process (SimGrid's
  // engine is a singleton): a second throws std::logic_error. Throws std::invalid_argument on an invalid
  // topology, deployment or QoS spec.
  SimBackend(const Topology& topo, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
             SimOptions options = {});
  ~SimBackend() override;
  SimBackend(const SimBackend&) = delete;
  SimBackend& operator=(const SimBackend&) = delete;

  // Runs the simulation: `start` at t = 0, then until no work is pending or SimSpec::time_limit is reached
  // (work still pending then is dropped, its callbacks never run). Callable once. An exception thrown by a
  // callback stops the simulation and is rethrown here.
  void run(Done start);
  // Whether run() stopped at SimSpec::time_limit with work still pending.
  bool hit_time_limit() const;
  // Whether run() ended because the engine called stop() (the online stop rule).
  bool stopped_early() const;
  bool can_stop() const override { return true; }
  void stop() override;

  double now() const override;
  using Backend::storage_read;
  using Backend::storage_write;
  void storage_read(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) override;
  void storage_write(int node, const BlockRanges& blocks, double bytes, Done done) override;
  void transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) override;
  void compute(int gpu, const ComputeWork& work, Done done) override;
  void timer(double delay, Done done) override;

  // Per-link totals and utilisation samples; link descriptions are available before run(), the rest after.
  const LinkReport& links() const;
  const SimStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dualpath::sim
