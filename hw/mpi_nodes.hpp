// The scheduler rank's view of the node processes: each NodeLink call becomes an operation message to node n's
// rank (1 + n), and its reply, polled from the event loop, runs the callback. An operation unanswered for
// HwOptions::op_timeout seconds stops the run with an error naming the node (its process died or hung), so no
// request is silently lost. report() stops the node processes and gathers what each did.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hw/event_loop.hpp"
#include "hw/hw_options.hpp"
#include "hw/mpi_wire.hpp"
#include "hw/node_link.hpp"

namespace dualpath::hw {

class MpiNodes final : public NodeLink {
 public:
  MpiNodes(const HwOptions& options, EventLoop& loop, int nodes);
  void read(int node, std::vector<BlockKey> keys, Reply done) override;
  void write(int node, std::vector<BlockKey> keys, Reply done) override;
  void pull(int node, TrafficClass cls, int src, int dst, uint64_t bytes, Reply done) override;
  void compute(int node, int gpu, const ComputeWork& work, Reply done) override;
  nlohmann::json report() override;
  // Whether a node process stopped answering (it cannot be stopped cleanly; the caller aborts the MPI job).
  bool unresponsive() const { return unresponsive_; }

 private:
  struct Pending {
    int node;
    wire::OpKind kind;
    double sent;
    Reply done;
  };
  void send(int node, wire::Op op, Reply done);
  void poll();

  HwOptions opt_;
  EventLoop& loop_;
  int nodes_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Pending> pending_;
  double last_check_ = 0;
  bool unresponsive_ = false;
  std::vector<std::string> errors_;
};

}  // namespace dualpath::hw
