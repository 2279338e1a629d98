#include "sim/simgrid/qos_penalty.hpp"

#include <stdexcept>

#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/simix.hpp>

namespace dualpath::sim {

namespace kr = simgrid::kernel::resource;

namespace {

kr::Model* network_model() {
  for (kr::Model* m : simgrid::s4u::Engine::get_instance()->get_all_models())
    if (m->get_name().rfind("Network", 0) == 0) return m;
  throw std::logic_error("simulator: SimGrid has no network model");
}

}  // namespace

FlowHandle FlowHandle::start(const simgrid::s4u::CommPtr& comm, double penalty) {
  const simgrid::kernel::activity::ActivityImpl* impl = static_cast<const simgrid::s4u::Activity&>(*comm).get_impl();
  kr::Action* found = simgrid::kernel::actor::simcall_answered([impl, penalty]() -> kr::Action* {
    auto* set = network_model()->get_started_action_set();
    // The comm was started just now, so its action is the newest: scan from the back.
    for (auto it = set->rbegin(); it != set->rend(); ++it) {
      if (it->get_activity() == impl) {
        it->set_sharing_penalty(penalty);
        return &*it;
      }
    }
    return nullptr;
  });
  if (found == nullptr) throw std::logic_error("simulator: the kernel action of a started comm was not found");
  return FlowHandle(found);
}

double FlowHandle::rate() const { return action_->get_rate(); }

bool FlowHandle::finished() const { return action_->get_state() == kr::Action::State::FINISHED; }

}  // namespace dualpath::sim
