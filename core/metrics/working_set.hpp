// The KV working set of an online run (digest §7.7: about lambda * T * total_len / 2): agents arrive at rate
// lambda and live T seconds, so lambda*T are alive (Little's law), each holding on average half its final context.
// Computed from the requests' timelines two ways: the law from the measured lambda, T and final length, and the
// time average of the live agents' context over the run, so a planner sizing a KV cache (docs/dram-pool.md) sees
// both and how well the law holds for the workload.
#pragma once

#include <cstdint>
#include <vector>

#include "core/vocab/request.hpp"

namespace dualpath {

struct WorkingSet {
  int agents = 0;                 // agents that completed their trajectory (the law's T and L are over these)
  double agents_per_s = 0;        // lambda: agents started per second
  double mean_lifetime_s = 0;     // T: first arrival to last round done
  double mean_final_tokens = 0;   // L: the last round's prompt + generation
  double law_tokens = 0;          // lambda * T * L / 2
  double measured_mean_tokens = 0;  // live agents' context (the prompt of their current round), time average
                                    // over [first arrival, last done)
};

// Folded one request at a time in id order (a long run need not keep its requests): per agent, its lifetime, its
// last round and the context it held, each round's from its arrival to the next finished round's arrival (or its
// own end). Lost attempts (done < 0) are skipped.
class WorkingSetAccumulator {
 public:
  void add(const Request& r);
  // `agents_per_s`: the run's measured arrival rate (RunSummary::aps); `rounds[a]`: agent a's trajectory length.
  WorkingSet take(const std::vector<int>& rounds, double agents_per_s);

 private:
  struct Life {
    double first = 0, last = -1;
    int done = 0;
    int last_round = -1;
    double final_tokens = 0;
    double held = 0;  // token-seconds of its rounds before the last one finished
    int64_t prompt = 0;  // the last finished round's prompt, arrival and end
    double arrival = 0, end = 0;
  };
  std::vector<Life> agents_;
  double start_ = 0, end_ = 0;
  bool any_ = false;
};

WorkingSet working_set(const RequestLog& requests, const std::vector<int>& rounds, double agents_per_s);

}  // namespace dualpath
