// The round's pipeline: placement -> reads -> prefill -> decode -> the round's end, each stage a class that owns its
// slice of a request and hands the request on to the one stage it was given (RequestStage). No stage names another:
// the Cluster, the composition root (cluster.cpp), wires them. What flows back up the pipeline (room that came
// back, a read that must be placed again, a first token) goes through StageSignals, which the Cluster routes.
// Private to core/cluster/.
#pragma once

#include "core/vocab/request.hpp"

namespace dualpath {

// A stage that takes a request from the stage before it.
class RequestStage {
 public:
  virtual void accept(Request& r) = 0;

 protected:
  ~RequestStage() = default;
};

// What a stage tells the stages before it, and the Cluster, without naming them.
class StageSignals {
 public:
  // PE buffer room came back on `node`: its read queue may start reads.
  virtual void pe_room_back(int node) = 0;
  // Room or written blocks came back somewhere (a PE buffer, a persisted block a read waited for): every node's
  // read queue may start reads.
  virtual void reads_may_start() = 0;
  // DE buffer room came back (or both sides' room): every read queue may start reads, and, with streamed buffers,
  // the forwards held back for DE room are formed again.
  virtual void de_room_back() = 0;
  // A read that no SNIC it may use can serve goes back to PE placement (a policy without the DE read path).
  virtual void place_again(Request& r) = 0;
  // A request's first token is out (the online stop rule sees its TTFT).
  virtual void first_token(const Request& r) = 0;
  // A round's last token came at prefill (the first token was the last): the agent's next round follows.
  virtual void round_done(Request& r) = 0;
  // Requests may have settled (a round ended, a handoff finished): they go to the sink in id order.
  virtual void hand_over_settled() = 0;

 protected:
  ~StageSignals() = default;
};

// Where placement asks for a decode engine that holds a request's prefix in HBM (pe-pull-from-de, the decode stage):
// the engine the request must go to (it then holds that HBM), or -1; and, at each decode fetch, that prefixes kept
// past their retention time go (their HBM may be what a waiting request needs).
class ResidentPrefixes {
 public:
  virtual int claim(Request& r) = 0;
  virtual void expire_due() = 0;

 protected:
  ~ResidentPrefixes() = default;
};

// Where the read stage reports that a decode-side prefetch ended (de-prefetch): the DE buffer holds the request's hit
// (prefetch_gate.hpp).
class PrefetchListener {
 public:
  virtual void prefetched(Request& r) = 0;

 protected:
  ~PrefetchListener() = default;
};

}  // namespace dualpath
