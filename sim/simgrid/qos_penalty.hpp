// CNIC QoS on SimGrid (the weights: sim/qos_weights.hpp), and the only code that touches SimGrid kernel internals.
//
// SimGrid's public API has no per-communication weight (Comm::set_rate is a static cap, and 3.32 ignores it for
// host-to-host comms). The LMM solver does support weights: a flow's share is proportional to 1 / its sharing
// penalty. So each comm's kernel action gets the penalty of its traffic class (Qos::penalty).
//
// Every comm gets its penalty set explicitly, also with QoS off (then all weights are equal), because CM02's
// default penalty is the route latency and would otherwise weight flows by path length.
//
// Setting the penalty activates the flow at once, which skips CM02's latency phase. We therefore give SimGrid
// zero-latency links and apply route latency ourselves, after the last byte (see simgrid_backend.hpp).
//
// The kernel classes used here (Model::get_started_action_set, Action::set_sharing_penalty/get_rate/get_state)
// still exist in SimGrid 4.1; tests/sim/qos_test.cpp fails loudly if an upgrade changes their behaviour.
#pragma once

#include <simgrid/forward.h>

namespace dualpath::sim {

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
