// CNIC QoS as weighted max-min sharing: the weight of each traffic class (model 99, KV 1 by default) as the
// sharing penalty both engines use (a flow's share is proportional to 1 / its penalty): 99:1 while both classes
// compete for a link, and work-conserving when one is alone. That is the fluid limit of the DWRR/ETS virtual-lane
// arbitration the paper configures (simgrid notes §2.6, §5). The native solver weighs its flows by 1 / penalty
// (sim/native/native_backend.cpp); the SimGrid engine sets it on each comm's kernel action
// (sim/simgrid/qos_penalty.hpp).
#pragma once

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::sim {

// Weights per traffic class -> sharing penalties.
class Qos {
 public:
  explicit Qos(const QosSpec& spec);  // throws std::invalid_argument on a non-positive weight
  double penalty(TrafficClass cls) const { return cls == TrafficClass::Model ? model_penalty_ : kv_penalty_; }

 private:
  double model_penalty_ = 1;
  double kv_penalty_ = 1;
};

}  // namespace dualpath::sim
