#include "hw/mpi_nodes.hpp"

#include <chrono>
#include <sstream>
#include <thread>

#include "hw/mpi_comm.hpp"

namespace dualpath::hw {

MpiNodes::MpiNodes(const HwOptions& options, EventLoop& loop, int nodes) : opt_(options), loop_(loop), nodes_(nodes) {
  loop_.set_poller([this] { poll(); }, 50e-6);
}

void MpiNodes::send(int node, wire::Op op, Reply done) {
  op.id = next_id_++;
  loop_.begin_op();  // ended by the reply's post()
  pending_.emplace(op.id, Pending{node, op.kind, loop_.now(), std::move(done)});
  mpi::post(1 + node, wire::kOp, wire::encode(op));
}

void MpiNodes::read(int node, std::vector<BlockKey> keys, Reply done) {
  wire::Op op;
  op.kind = wire::OpKind::Read;
  op.keys = std::move(keys);
  send(node, std::move(op), std::move(done));
}

void MpiNodes::write(int node, std::vector<BlockKey> keys, Reply done) {
  wire::Op op;
  op.kind = wire::OpKind::Write;
  op.keys = std::move(keys);
  send(node, std::move(op), std::move(done));
}

void MpiNodes::pull(int node, TrafficClass cls, int src, int dst, uint64_t bytes, Reply done) {
  wire::Op op;
  op.kind = wire::OpKind::Pull;
  op.cls = cls, op.src = src, op.dst = dst, op.bytes = bytes;
  send(node, std::move(op), std::move(done));
}

void MpiNodes::compute(int node, int gpu, const ComputeWork& work, Reply done) {
  wire::Op op;
  op.kind = wire::OpKind::Compute;
  op.gpu = gpu;
  op.work = work;
  send(node, std::move(op), std::move(done));
}

void MpiNodes::poll() {
  mpi::progress_posts();
  std::string bytes, err;
  int from = 0, tag = 0;
  while (mpi::try_recv(-1, wire::kReply, bytes, from, tag)) {
    const uint64_t id = wire::decode_reply(bytes, err);
    auto it = pending_.find(id);
    if (it == pending_.end()) continue;  // answered after a timeout already stopped the run
    loop_.post([done = std::move(it->second.done), err] { done(err); });
    pending_.erase(it);
  }
  const double now = loop_.now();
  if (now - last_check_ < 0.1 || pending_.empty()) return;
  last_check_ = now;
  for (const auto& [id, p] : pending_) {
    if (now - p.sent <= opt_.op_timeout) continue;
    std::ostringstream o;
    o << "node " << p.node << " (MPI rank " << 1 + p.node << ") did not answer a " << wire::op_name(p.kind)
      << " within " << opt_.op_timeout << " s: its process died or hung (--op-timeout)";
    errors_.push_back(o.str());
    unresponsive_ = true;
    loop_.fail(o.str());
    return;
  }
}

nlohmann::json MpiNodes::report() {
  for (int n = 0; n < nodes_; ++n) mpi::post(1 + n, wire::kStop, "");
  std::vector<nlohmann::json> reports(nodes_);
  std::vector<bool> got(nodes_, false);
  // Nodes finish the work they have in flight before reporting (paced reads, compute): allow an operation's time.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt_.op_timeout);
  int left = nodes_;
  std::string bytes;
  int from = 0, tag = 0;
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    mpi::progress_posts();
    if (!mpi::try_recv(-1, -1, bytes, from, tag)) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    if (tag != wire::kReport || from < 1 || from > nodes_) continue;  // late replies of a failed run
    reports[from - 1] = nlohmann::json::parse(bytes, nullptr, false);
    got[from - 1] = true;
    --left;
  }
  nlohmann::json j;
  j["mode"] = "mpi: scheduler rank 0 + " + std::to_string(nodes_) + " node processes (ranks 1.." +
              std::to_string(nodes_) + ")";
  j["nodes"] = nlohmann::json::array();
  nlohmann::json storage = {{"file_bytes_read", 0},  {"file_bytes_written", 0}, {"blocks_read", 0},
                            {"blocks_written", 0},   {"blocks_verified", 0},    {"errors", 0}};
  bool fallback = false, real = true, first = true;
  for (int n = 0; n < nodes_; ++n) {
    if (!got[n] || reports[n].is_discarded()) {
      errors_.push_back("node " + std::to_string(n) + " (MPI rank " + std::to_string(1 + n) +
                        ") sent no report: its process is unresponsive");
      unresponsive_ = true;
      real = false;
      continue;
    }
    const auto& r = reports[n];
    if (first) {
      for (const char* k : {"storage_engine", "kv_transport", "model_transport", "compute"}) j[k] = r.at(k);
      first = false;
    }
    for (auto& [k, v] : storage.items()) v = v.get<double>() + r.at("storage").at(k).get<double>();
    fallback = fallback || r.at("transport_fallback").get<bool>();
    real = real && r.at("compute_real").get<bool>();
    for (const auto& e : r.at("errors")) errors_.push_back("node " + std::to_string(n) + ": " + e.get<std::string>());
    j["nodes"].push_back(r);
  }
  for (auto& [k, v] : storage.items()) v = static_cast<uint64_t>(v.get<double>());
  j["storage"] = storage;
  j["transport_fallback"] = fallback;
  j["compute_real"] = real;
  j["errors"] = errors_;
  return j;
}

}  // namespace dualpath::hw
