#include "hw/mpi_node_server.hpp"

#include <chrono>
#include <thread>

#include "hw/local_nodes.hpp"
#include "hw/mpi_comm.hpp"
#include "hw/mpi_wire.hpp"
#include "hw/node_agent.hpp"

namespace dualpath::hw {

void serve_node(int node, const HwOptions& opt, NodeResources& res, const ComputeSetup& compute) {
  EventLoop loop;
  const NodeAgentOptions ao = agent_options(opt);
  NodeAgent agent(node, loop, *res.store, 0, *res.kv, *res.model, ao, compute.kernels, compute.copies);
  std::vector<std::string> errors;
  bool stopping = false;
  uint64_t answered_reads = 0;
  const bool silent = opt.fault == HwFault::NodeSilent && node == 0;

  loop.begin_op();  // keeps the loop alive until the scheduler says stop
  loop.set_poller(
      [&] {
        std::string bytes;
        int from = 0, tag = 0;
        while (!stopping && mpi::try_recv(0, -1, bytes, from, tag)) {
          if (tag == wire::kStop) {
            stopping = true;
            loop.post([] {});  // ends the keep-alive; operations still in flight finish first
            break;
          }
          if (tag != wire::kOp) continue;
          wire::Op op;
          try {
            op = wire::decode_op(bytes);
          } catch (const std::exception& e) {
            errors.push_back(e.what());
            continue;  // the scheduler's timeout names the lost operation
          }
          auto reply = [id = op.id, &answered_reads, kind = op.kind, silent](const std::string& err) {
            if (kind == wire::OpKind::Read) ++answered_reads;
            // Fault injection: node 0 goes silent after its second read, as a hung process would.
            if (silent && answered_reads > 2) return;
            mpi::send(0, wire::kReply, wire::encode_reply(id, err));
          };
          try {
            switch (op.kind) {
              case wire::OpKind::Read: agent.read(std::move(op.keys), reply); break;
              case wire::OpKind::Write: agent.write(std::move(op.keys), reply); break;
              case wire::OpKind::Pull: agent.pull(op.cls, op.src, op.dst, op.bytes, reply); break;
              case wire::OpKind::Compute: agent.compute(op.gpu, op.work, reply); break;
            }
          } catch (const std::exception& e) {
            reply(std::string("node ") + std::to_string(node) + ": " + e.what());
          }
        }
        if (silent && answered_reads > 2) {
          // A hung process: never answers again (the scheduler times out and aborts the job).
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
      },
      50e-6);
  loop.run([] {});

  nlohmann::json r = res.describe();
  r["compute"] = compute.description;
  r["compute_real"] = compute.real;
  r["agent"] = agent_report(agent);
  r["errors"] = errors;
  if (loop.failed()) r["errors"].push_back(loop.failure());
  mpi::send(0, wire::kReport, r.dump());
}

}  // namespace dualpath::hw
