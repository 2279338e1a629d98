// One scenario fault as it happened (the handlers in core/cluster/faults/): when it hit and ended and what it cost.
// The stages that a fault reaches add to it (a failed read, a rewritten block, a lost write).
#pragma once

#include <cstdint>

#include "core/config/scenario.hpp"  // FaultSpec

namespace dualpath {

struct FaultRecord {
  FaultSpec spec;
  double started = -1, ended = -1;  // simulated seconds (-1: not reached; ended -1 = lasted to the end)
  int64_t reads_failed = 0;         // reads in flight that the fault failed (read again from scratch)
  int64_t writes_failed = 0;        // persistence writes in flight that it failed (written again when up)
  int64_t reads_moved = 0;          // queued or failed reads sent to the other read path or another PE
  double bytes_reread = 0, bytes_rewritten = 0;
  // node-down: rounds whose attempt was lost and restarted, the hit KV those attempts had read (or were reading)
  // for nothing, and the bytes of claimed blocks whose write was lost (written again by whoever computes them).
  int64_t rounds_restarted = 0;
  double bytes_lost = 0, writes_lost = 0;
};

}  // namespace dualpath
