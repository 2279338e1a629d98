// CNIC QoS as weighted max-min sharing, and the only code that touches SimGrid kernel internals.
//
// SimGrid's public API has no per-communication weight (Comm::set_rate is a static cap, and 3.32 ignores it for
// host-to-host comms). The LMM solver does support weights: a flow's share is proportional to 1 / its sharing
// penalty. So each comm's kernel action gets penalty = 1 / weight of its traffic class (model 99, KV 1 by
// default): 99:1 while both classes compete for a link, and work-conserving when one is alone. That is the fluid
// limit of the DWRR/ETS virtual-lane arbitration the paper configures (simgrid notes §2.6, §5).
//
// Every comm gets its penalty set explicitly, also with QoS off (then all weights are equal), because CM02's
// default penalty is the route latency and would otherwise weight flows by path length.
//
// Setting the penalty activates the flow at once, which skips CM02's latency phase. We therefore give SimGrid
// zero-latency links and apply route latency ourselves, after the last byte (see sim_backend.hpp).
//
// The kernel classes used here (Model::get_started_action_set, Action::set_sharing_penalty/get_rate/get_state)
// still exist in SimGrid 4.1; tests/sim/qos_test.cpp fails loudly if an upgrade changes their behaviour.
#pragma once

#include <simgrid/forward.h>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::sim {

// Weights per traffic class -> LMM sharing penalties.
class Qos {
 public:
  explicit Qos(const QosSpec& spec);  // throws std::invalid_argument on a non-positive weight
  double penalty(TrafficClass cls) const { return cls == TrafficClass::Model ? model_penalty_ : kv_penalty_; }

 private:
  double model_penalty_ = 1;
  double kv_penalty_ = 1;
};

// A started comm's kernel action: valid from start until the step in which it finishes (FlowHandle::finished()
// turns true in the on_time_advance signal of that step; the kernel frees the action right after).
class FlowHandle {
 public:
  FlowHandle() = default;
  // Finds the action of `comm`, which must have just been started by this actor (Comm::sendto_async), and sets
  // its sharing penalty. Throws std::logic_error if it cannot be found.
  static FlowHandle start(const simgrid::s4u::CommPtr& comm, double penalty);

  double rate() const;      // current rate, bytes/s (the last solved value)
  bool finished() const;    // the action reached FINISHED
  bool valid() const { return action_ != nullptr; }
  void reset() { action_ = nullptr; }

 private:
  explicit FlowHandle(simgrid::kernel::resource::Action* a) : action_(a) {}
  simgrid::kernel::resource::Action* action_ = nullptr;
};

}  // namespace dualpath::sim
