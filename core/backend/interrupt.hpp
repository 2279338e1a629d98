// A process-wide request to stop the simulations running in this process now (issue 80: Ctrl-C from Python, whose
// runs go on threads the interpreter's signal handler cannot reach). The native engine checks it at each clock
// advance, a relaxed load, and throws Interrupted; the run's folder is then incomplete, and its caller removes it.
#pragma once

#include <atomic>

#include "core/backend/run_errors.hpp"

namespace dualpath {

// One flag for the process (an inline variable: no initialisation guard on the engine's hot path).
inline std::atomic<bool> interrupt_requested{false};
inline void request_interrupt() { interrupt_requested.store(true, std::memory_order_relaxed); }
inline void clear_interrupt() { interrupt_requested.store(false, std::memory_order_relaxed); }
inline void check_interrupt() {
  if (interrupt_requested.load(std::memory_order_relaxed)) throw Interrupted("the run was interrupted");
}

}  // namespace dualpath
