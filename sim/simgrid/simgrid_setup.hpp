// Creating the SimGrid engine with the settings every dualpath simulation uses.
#pragma once

#include <memory>

#include <simgrid/forward.h>

namespace dualpath::sim {

// Creates the process's one SimGrid engine, configured for RDMA-like fluid networking and silent logs:
//  - network/model:CM02, crosstraffic:0, TCP-gamma:1e12: plain max-min sharing with no TCP factors, no ACK
//    traffic on reverse routes and no window cap (SimGrid 3.32 has no "raw" model; simgrid notes §2.5);
//  - contexts/stack-size: the driver actor's stack in KiB (the core's callbacks run on it);
//  - log threshold "critical": a run prints nothing from SimGrid.
// SimGrid's Engine is a singleton whose clock and signals survive it, so a second call in the same process
// throws std::logic_error: run one simulation per process (fork or exec for more).
std::unique_ptr<simgrid::s4u::Engine> make_engine(int stack_kib, bool full_lmm_update = false);

}  // namespace dualpath::sim
