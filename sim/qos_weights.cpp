#include "sim/qos_weights.hpp"

#include <cmath>
#include <stdexcept>

#include "core/mutation/mutant.hpp"

namespace dualpath::sim {

Qos::Qos(const QosSpec& spec) {
  if (!spec.enabled || mutant("no_qos")) return;  // equal weights: every flow gets penalty 1
  if (!(spec.model_weight > 0) || !(spec.kv_weight > 0) || !std::isfinite(spec.model_weight) ||
      !std::isfinite(spec.kv_weight))
    throw std::invalid_argument("simulator: QoS weights must be positive numbers");
  // Only the ratio matters to max-min; normalise so the KV class keeps SimGrid's usual penalty of 1.
  model_penalty_ = spec.kv_weight / spec.model_weight;
  kv_penalty_ = 1.0;
}

}  // namespace dualpath::sim
