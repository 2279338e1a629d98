// What node-down and cnic-down share (node_down.cpp, cnic_down.cpp): engines lost for the rest of the run, and
// the rounds whose attempts were on them restarted. Private to core/cluster/faults/.
#pragma once

#include <cstddef>
#include <functional>

#include "core/cluster/faults/fault_handler.hpp"

namespace dualpath {

// The engines lost: every lockstep unit with a GPU that `lost` names (an EP group cannot run a layer without one of
// its engines). Their forwards and decode chunks in flight are dropped; their decode engines' filled blocks not yet
// on their way to storage are unclaimed. NoProgressError when no prefill or no decode engine is left.
void lose_engines(FaultScope& s, size_t fault, const std::function<bool(int)>& lost);
// The attempts lost: those on a lost decode engine that have not finished, and those on a lost prefill engine whose
// prompt KV is not yet all in the decode buffer. Each gives back what it held and its round restarts at once as a
// new request.
void restart_lost_rounds(FaultScope& s, size_t fault);

}  // namespace dualpath
