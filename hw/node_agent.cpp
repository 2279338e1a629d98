#include "hw/node_agent.hpp"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <stdexcept>

namespace dualpath::hw {

namespace {

// One transfer split into chunks over the staging regions; completions arrive on the transport thread.
struct TransferJob {
  std::mutex mu;
  Transport* tr = nullptr;
  int src = 0, dst = 0;
  size_t region = 0, chunk = 0;
  uint64_t left = 0;  // bytes not yet issued
  size_t offset = 0;  // next offset in the regions (wraps)
  int inflight = 0;
  std::string error;
  std::function<void(const std::string&)> finish;

  // Issues chunks up to `depth` in flight. Called with mu held; may call finish (after unlocking).
  void pump(std::unique_lock<std::mutex>& lk, int depth, const std::shared_ptr<TransferJob>& self) {
    while (left > 0 && inflight < depth && error.empty()) {
      if (offset >= region) offset = 0;
      const size_t n = static_cast<size_t>(std::min<uint64_t>({left, chunk, region - offset}));
      const size_t off = offset;
      offset += n, left -= n, ++inflight;
      lk.unlock();
      // Receiver-initiated one-sided read (RDMA READ semantics): complete when the bytes are at the destination.
      tr->get(src, off, dst, off, n, [self, depth](const std::string& err) {
        std::unique_lock l(self->mu);
        --self->inflight;
        if (!err.empty() && self->error.empty()) self->error = err;
        self->pump(l, depth, self);
      });
      lk.lock();
    }
    if (inflight == 0 && (left == 0 || !error.empty()) && finish) {
      auto f = std::move(finish);
      finish = nullptr;
      const std::string e = error;
      lk.unlock();
      f(e);
      lk.lock();
    }
  }
};

}  // namespace

NodeAgent::NodeAgent(int node, EventLoop& loop, BlockStore& store, int store_node, Transport& kv, Transport& model,
                     NodeAgentOptions options, KernelRunner kernels, CopyRunner copies)
    : node_(node), loop_(loop), store_(store), store_node_(store_node), kv_(kv), model_(model),
      opt_(std::move(options)), kernels_(std::move(kernels)), copies_(std::move(copies)) {
  if (opt_.fault != HwFault::None && opt_.fault != HwFault::MissingBlock && opt_.fault != HwFault::SnicDown)
    throw std::invalid_argument(std::string("hw: a node agent cannot inject fault '") +
                                choice_name(kHwFaults, opt_.fault) + "' (missing-block | snic-down)");
  if (opt_.staging_bytes < 4096 || opt_.chunk_bytes == 0) throw std::invalid_argument("hw: staging too small");
}

void NodeAgent::read(std::vector<BlockKey> keys, Reply done) {
  ++stats_.reads;
  stats_.blocks_read += keys.size();
  loop_.begin_op();
  if (keys.empty()) {
    loop_.post([done = std::move(done)] { done(""); });
    return;
  }
  if (opt_.fault == HwFault::SnicDown && node_ == 0 && stats_.reads > 2) {
    // Fault injection: node 0's storage NIC fails after its second read; every later read reports it.
    loop_.post([done = std::move(done)] { done("the storage NIC of node 0 is down (injected fault snic-down)"); });
    return;
  }
  try {
    store_.read_blocks(store_node_, std::move(keys),
                       [this, done = std::move(done)](const std::string& err, BlockStore::Clock::time_point at) {
                         if (!err.empty()) loop_.post([done, err] { done(err); });
                         else loop_.post_at(loop_.seconds_at(at), [done] { done(""); });  // the paced SNIC's finish
                       });
  } catch (...) {
    loop_.post([] {});  // ends the operation begun above
    throw;
  }
}

void NodeAgent::write(std::vector<BlockKey> keys, Reply done) {
  ++stats_.writes;
  stats_.blocks_written += keys.size();
  loop_.begin_op();
  if (keys.empty()) {
    loop_.post([done = std::move(done)] { done(""); });
    return;
  }
  const BlockKey first = keys.front();
  try {
    store_.write_blocks(store_node_, std::move(keys), 0,
                        [this, first, done = std::move(done)](const std::string& err,
                                                              BlockStore::Clock::time_point at) {
                          if (!err.empty()) {
                            loop_.post([done, err] { done(err); });
                            return;
                          }
                          loop_.post_at(loop_.seconds_at(at), [this, first, done] {
                            if (opt_.fault == HwFault::MissingBlock && !fault_done_) {
                              fault_done_ = true;
                              std::error_code ec;
                              std::filesystem::remove(store_.path_of(first), ec);
                            }
                            done("");
                          });
                        });
  } catch (...) {
    loop_.post([] {});  // ends the operation begun above
    throw;
  }
}

void NodeAgent::pull(TrafficClass cls, int src_region, int dst_region, uint64_t bytes, Reply done) {
  ++stats_.pulls;
  stats_.pulled_bytes += static_cast<double>(bytes);
  loop_.begin_op();
  if (bytes == 0) {
    loop_.post([done = std::move(done)] { done(""); });
    return;
  }
  if (copies_ && src_region != dst_region && src_region / 2 == dst_region / 2) {
    // A GPU's own DRAM <-> HBM (H2D/D2H of a Layer Block): the GPU's copy engine moves it from pinned memory.
    ++stats_.gpu_copies;
    copies_(src_region / 2, dst_region % 2 == 0, bytes,
            [this, done = std::move(done)](double seconds, const std::string& err) {
              loop_.post([this, done, seconds, err] {
                stats_.gpu_copy_seconds += seconds;
                done(err);
              });
            });
    return;
  }
  auto job = std::make_shared<TransferJob>();
  job->tr = cls == TrafficClass::Kv ? &kv_ : &model_;
  job->src = src_region;
  // A copy within one memory (a loopback of the same region) reads into the GPU's other memory instead.
  job->dst = src_region == dst_region ? (dst_region ^ 1) : dst_region;
  job->region = opt_.staging_bytes;
  job->chunk = std::min(opt_.chunk_bytes, opt_.staging_bytes);
  job->left = bytes;
  job->finish = [this, done = std::move(done)](const std::string& err) { loop_.post([done, err] { done(err); }); };
  std::unique_lock lk(job->mu);
  job->pump(lk, opt_.chunks_in_flight, job);
}

void NodeAgent::compute(int gpu, const ComputeWork& work, Reply done) {
  ++stats_.computes;
  stats_.predicted_compute_seconds += work.seconds;
  if (!kernels_) {
    // Emulated compute: no GPU work is done; the engine is busy for the cost model's predicted time.
    stats_.emulated_compute_seconds += work.seconds;
    loop_.timer(std::max(0.0, work.seconds), [done = std::move(done)] { done(""); });
    return;
  }
  loop_.begin_op();
  try {
    kernels_(gpu, work, [this, done = std::move(done)](double seconds, const std::string& err) {
      loop_.post([this, done, seconds, err] {
        stats_.measured_compute_seconds += seconds;
        done(err.empty() ? err : "compute: " + err);
      });
    });
  } catch (...) {
    loop_.post([] {});  // ends the operation begun above
    throw;
  }
}

}  // namespace dualpath::hw
