// The errors a run raises that its callers (cli/, sim/, hw/) catch by type: kept apart from the Cluster so that a
// backend or a command can name them without including the Cluster.
#pragma once

#include <stdexcept>

namespace dualpath {

// Thrown when the run cannot make progress (e.g. a request larger than every buffer, or a clock that would pass
// the horizon): exit 1, with what stalled.
class NoProgressError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when a storage read fails and its retry fails too: the round's KV cannot be loaded.
class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when the process asked its runs to stop (core/backend/interrupt.hpp): Python raises KeyboardInterrupt.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dualpath
