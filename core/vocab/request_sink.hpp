// Where a run's requests go once the Cluster is done with them: the Cluster hands each request over exactly once,
// in id order, when it and every request before it are settled (finished, with its prompt persisted, or lost with
// a node), and at the end of the run the rest as they stand. The run's records (core/run/run_records.hpp) write
// requests.csv and fold the summary from them, so that a long run frees what it has handed over.
#pragma once

#include "core/vocab/request.hpp"

namespace dualpath {

class RequestSink {
 public:
  virtual ~RequestSink() = default;
  virtual void settled(const Request& r) = 0;
};

}  // namespace dualpath
