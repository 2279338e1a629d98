// The SimGrid network engine of the simulator (sim/simulator.hpp): transfers are SimGrid comms whose rates
// SimGrid's max-min (LMM) solver sets, over the platform of platform.hpp, with CNIC QoS as per-flow sharing
// penalties (qos_penalty.hpp) and exact per-link accounting (sim/link_meter.hpp). The engine of record for contention.
//
// run() starts SimGrid with ONE long-lived driver actor. It calls `start` at t = 0, then loops: wait for the next
// completion among the running comms or the next timer deadline, run the callbacks that are due, repeat until
// nothing is pending. Transfers are one-sided Comm::sendto_async between endpoint hosts; no actor per transfer.
#pragma once

#include <memory>

#include "core/config/scenario.hpp"
#include "sim/simulator.hpp"

namespace dualpath::sim {

class SimgridBackend final : public Simulator {
 public:
  // Creates the SimGrid engine and the platform. Only one SimgridBackend may ever exist in a process (SimGrid's
  // engine is a singleton): a second throws std::logic_error. Throws std::invalid_argument on an invalid
  // topology, deployment or QoS spec.
  SimgridBackend(const Hardware& hw, const Deployment& dep, const QosSpec& qos, const SimSpec& spec,
             SimOptions options = {});
  ~SimgridBackend() override;
  SimgridBackend(const SimgridBackend&) = delete;
  SimgridBackend& operator=(const SimgridBackend&) = delete;

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
  void cancel_flow(uint64_t handle) override;
  void scale_link(int link, double factor) override;
  void add_timer(double delay, Done done) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dualpath::sim
