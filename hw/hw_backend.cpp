#include "hw/hw_backend.hpp"

#include <cmath>
#include <stdexcept>

#include "hw/node_resources.hpp"

namespace dualpath::hw {

HwBackend::HwBackend(const Scenario& sc, EventLoop& loop, NodeLink& nodes, LinkLog* links)
    : loop_(loop), nodes_(nodes), links_(links) {
  nodes_n_ = sc.deployment.prefill_nodes + sc.deployment.decode_nodes;
  gpus_per_node_ = sc.topology.gpus_per_node;
  gpus_ = nodes_n_ * gpus_per_node_;
  block_bytes_ = block_bytes_of(sc);
}

void HwBackend::fail(const std::string& what) {
  errors_.push_back(what);
  loop_.fail(what);
}

NodeLink::Reply HwBackend::reply(std::string what, Done done) {
  return [this, what = std::move(what), done = std::move(done)](const std::string& err) {
    if (err.empty()) done();
    else fail(what + ": " + err);
  };
}

bool HwBackend::run(const Done& start) {
  loop_.reset_clock();
  loop_.run(start);
  return !loop_.failed();
}

// The files a storage call moves: one per Full Block of each range, keyed by (stream, block index).
std::vector<BlockKey> HwBackend::keys_of(const BlockRanges& blocks, double bytes, const char* what) const {
  std::vector<BlockKey> keys;
  for (const auto& r : blocks) {
    if (r.stream < 0 || r.first < 0 || r.last < r.first)
      throw std::invalid_argument(std::string("hw ") + what + ": bad block range");
    for (int64_t b = r.first; b < r.last; ++b)
      keys.push_back(BlockKey{static_cast<uint64_t>(r.stream), static_cast<uint32_t>(b)});
  }
  // The core moves whole Full Blocks: the byte count must be the blocks' payload (a mismatch is a core bug).
  const double expect = static_cast<double>(keys.size()) * static_cast<double>(block_bytes_);
  if (std::abs(expect - bytes) > 0.5 + 1e-9 * bytes)
    throw std::logic_error(std::string("hw ") + what + ": " + std::to_string(bytes) + " bytes named " +
                           std::to_string(keys.size()) + " blocks of " + std::to_string(block_bytes_) + " B");
  return keys;
}

template <typename Record>
Done HwBackend::metered(Done done, Record record) {
  if (!links_) return done;
  return [this, t0 = now(), record = std::move(record), done = std::move(done)] {
    record(t0, now());
    done();
  };
}

void HwBackend::storage_read(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) {
  if (node < 0 || node >= nodes_n_) throw std::out_of_range("hw storage_read: node " + std::to_string(node));
  ++stats_.storage_reads;
  stats_.requested_read_bytes += bytes;
  done = metered(std::move(done),
                 [this, node, bytes](double t0, double t1) { links_->storage(node, true, t0, t1, bytes); });
  nodes_.read(node, keys_of(blocks, bytes, "storage_read"),
              [this, node, bytes, done = std::move(done), failed = std::move(failed)](const std::string& err) {
                if (err.empty()) return done();
                if (!failed) return fail("storage read on node " + std::to_string(node) + ": " + err);
                // The core retries this read elsewhere: it was not delivered, and the retry counts again.
                ++stats_.failed_reads;
                --stats_.storage_reads;
                stats_.requested_read_bytes -= bytes;
                failed(err);
              });
}

void HwBackend::storage_write(int node, const BlockRanges& blocks, double bytes, Done done, Failed) {
  if (node < 0 || node >= nodes_n_) throw std::out_of_range("hw storage_write: node " + std::to_string(node));
  ++stats_.storage_writes;
  stats_.requested_write_bytes += bytes;
  done = metered(std::move(done),
                 [this, node, bytes](double t0, double t1) { links_->storage(node, false, t0, t1, bytes); });
  nodes_.write(node, keys_of(blocks, bytes, "storage_write"),
               reply("storage write on node " + std::to_string(node), std::move(done)));
}

void HwBackend::transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) {
  if (src.gpu < 0 || src.gpu >= gpus_ || dst.gpu < 0 || dst.gpu >= gpus_)
    throw std::out_of_range("hw transfer: gpu out of range");
  ++stats_.transfers;
  stats_.transferred_bytes += bytes;
  const uint64_t n = static_cast<uint64_t>(std::llround(std::max(0.0, bytes)));
  done = metered(std::move(done), [this, src, dst, cls, bytes](double t0, double t1) {
    links_->transfer(src.gpu, dst.gpu, cls, t0, t1, bytes);
  });
  // The receiving node pulls (RDMA READ semantics): its agent owns the destination memory.
  nodes_.pull(node_of(dst.gpu), cls, NodeAgent::region(src.gpu, src.loc), NodeAgent::region(dst.gpu, dst.loc), n,
              reply(std::string("transfer ") + hop_name(hop), std::move(done)));
}

void HwBackend::compute(int gpu, const ComputeWork& work, Done done) {
  if (gpu < 0 || gpu >= gpus_) throw std::out_of_range("hw compute: gpu " + std::to_string(gpu));
  ++stats_.computes;
  stats_.predicted_compute_seconds += work.seconds;
  nodes_.compute(node_of(gpu), gpu, work, reply("compute on GPU " + std::to_string(gpu), std::move(done)));
}

void HwBackend::timer(double delay, Done done) {
  ++stats_.timers;
  loop_.timer(std::max(0.0, delay), std::move(done));
}

}  // namespace dualpath::hw
