// The native network engine of the simulator (sim/simulator.hpp): the same fabric, QoS weights, event order and
// link accounting as the SimGrid engine, with the flow rates solved by dualpath's own weighted max-min
// (maxmin.hpp) and the clock advanced by a plain loop: no actors, simcalls, comm objects or kernel actions.
//
// Between two events every flow's rate is constant. Each loop turn: run the callbacks due now; if the set of
// flows changed, re-solve all rates; advance the clock to the earliest of (a flow's last byte, the next timer,
// the time limit), charging rate x time to every flow and link; flows whose bytes are all sent complete at that
// time + their route latency. The rates are SimGrid's to its solver precision, so results agree with the SimGrid
// engine to that precision, except where two events fall within it of each other and change order
// (tests/cli/sim_engines.sh bounds the effect on a whole run's metrics).
#pragma once

#include <memory>

#include "core/config/scenario.hpp"
#include "sim/simulator.hpp"

namespace dualpath::sim {

class NativeBackend final : public Simulator {
 public:
  // Throws std::invalid_argument on an invalid topology, deployment or QoS spec. Any number may exist.
  NativeBackend(const Hardware& hw, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
               SimOptions options = {});
  ~NativeBackend() override;
  NativeBackend(const NativeBackend&) = delete;
  NativeBackend& operator=(const NativeBackend&) = delete;

  void run(Done start) override;
  bool hit_time_limit() const override;
  bool stopped_early() const override;
  void stop() override;
  double now() const override;
  const LinkReport& links() const override;
  const SimStats& stats() const override;

 protected:
  const Fabric& fabric() const override;
  LinkMeter& meter() override;
  uint64_t start_flow(int src, int dst, double bytes, TrafficClass cls, Done done) override;
  void start_flow_group(const std::vector<GroupFlow>& flows, TrafficClass cls, Done done) override;
  void cancel_flow(uint64_t handle) override;
  void scale_link(int link, double factor) override;
  void add_timer(double delay, Done done) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dualpath::sim
