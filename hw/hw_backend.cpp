#include "hw/hw_backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
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
  uint64_t left = 0;     // bytes not yet issued
  size_t offset = 0;     // next offset in the regions (wraps)
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

HwBackend::HwBackend(const Scenario& sc, const HwOptions& options) : opt_(options) {
  nodes_ = sc.deployment.prefill_nodes + sc.deployment.decode_nodes;
  gpus_ = nodes_ * sc.topology.gpus_per_node;
  snic_rate_ = options.snic_rate > 0 ? options.snic_rate : sc.topology.snic_bw;
  const double block = sc.model.kv_bytes_per_token() * sc.policy.block_tokens;
  if (!(block >= 1)) throw std::invalid_argument("hw: a Full Block must hold at least one byte");
  block_bytes_ = static_cast<size_t>(std::llround(block));
  if (opt_.storage_dir.empty()) throw std::invalid_argument("hw: a storage directory is required");
  if (!opt_.fault.empty() && opt_.fault != "missing-block")
    throw std::invalid_argument("hw: unknown fault '" + opt_.fault + "' (missing-block)");
  if (opt_.staging_bytes < 4096 || opt_.chunk_bytes == 0) throw std::invalid_argument("hw: staging too small");

  // Start from an empty store: old block files would otherwise be indistinguishable from this run's.
  std::error_code ec;
  if (std::filesystem::exists(opt_.storage_dir, ec))
    for (const auto& e : std::filesystem::directory_iterator(opt_.storage_dir))
      if (e.path().extension() == ".blk") std::filesystem::remove(e.path(), ec);

  BlockStoreOptions so;
  so.dir = opt_.storage_dir;
  so.block_bytes = block_bytes_;
  so.nodes = nodes_;
  so.read_rate = snic_rate_;
  so.write_rate = snic_rate_;
  so.io_uring = opt_.io_uring;
  so.direct = opt_.direct;
  so.verify_every = opt_.verify_every;
  store_ = std::make_unique<BlockStore>(so);

  TransportOptions to;
  to.kind = opt_.transport;
  to.tls = opt_.ucx_tls;
  to.label = "kv";
  kv_ = make_transport(to);
  to.label = "model";
  model_ = make_transport(to);

  for (int r = 0; r < 2 * gpus_; ++r) {
    void* p = std::aligned_alloc(4096, opt_.staging_bytes);
    if (!p) throw std::bad_alloc();
    std::memset(p, r, opt_.staging_bytes);  // touch the pages so the first transfers do not pay page faults
    memory_.push_back(static_cast<char*>(p));
    const int a = kv_->register_region(p, opt_.staging_bytes);
    const int b = model_->register_region(p, opt_.staging_bytes);
    if (a != r || b != r) throw std::logic_error("hw: transport region ids out of order");
  }
  stats_.node_read_bytes.assign(nodes_, 0);
  stats_.node_write_bytes.assign(nodes_, 0);
}

HwBackend::~HwBackend() {
  kv_.reset();
  model_.reset();
  store_.reset();
  for (char* p : memory_) std::free(p);
}

void HwBackend::fail(const std::string& what) {
  errors_.push_back(what);
  loop_.fail(what);
}

bool HwBackend::run(const Done& start) {
  loop_.reset_clock();
  loop_.run(start);
  return !loop_.failed();
}

// The files a storage call moves: one per Full Block of each range, keyed by (agent, block index).
std::vector<BlockKey> HwBackend::keys_of(const BlockRanges& blocks, double bytes, const char* what) const {
  std::vector<BlockKey> keys;
  for (const auto& r : blocks) {
    if (r.agent < 0 || r.first < 0 || r.last < r.first)
      throw std::invalid_argument(std::string("hw ") + what + ": bad block range");
    for (int64_t b = r.first; b < r.last; ++b)
      keys.push_back(BlockKey{static_cast<uint64_t>(r.agent), static_cast<uint32_t>(b)});
  }
  // The core moves whole Full Blocks: the byte count must be the blocks' payload (a mismatch is a core bug).
  const double expect = static_cast<double>(keys.size()) * static_cast<double>(block_bytes_);
  if (std::abs(expect - bytes) > 0.5 + 1e-9 * bytes)
    throw std::logic_error(std::string("hw ") + what + ": " + std::to_string(bytes) + " bytes named " +
                           std::to_string(keys.size()) + " blocks of " + std::to_string(block_bytes_) + " B");
  return keys;
}

void HwBackend::storage_read(int node, const BlockRanges& blocks, double bytes, Done done) {
  if (node < 0 || node >= nodes_) throw std::out_of_range("hw storage_read: node " + std::to_string(node));
  ++stats_.storage_reads;
  stats_.requested_read_bytes += bytes;
  stats_.node_read_bytes[node] += bytes;
  std::vector<BlockKey> keys = keys_of(blocks, bytes, "storage_read");
  loop_.begin_op();
  if (keys.empty()) {
    loop_.post(std::move(done));
    return;
  }
  store_->read_blocks(node, std::move(keys), [this, done = std::move(done), node](const std::string& err,
                                                                                    BlockStore::Clock::time_point at) {
    if (!err.empty()) {
      loop_.post([this, err, node] { fail("storage read on node " + std::to_string(node) + ": " + err); });
      return;
    }
    loop_.post_at(loop_.seconds_at(at), done);
  });
}

void HwBackend::storage_write(int node, const BlockRanges& blocks, double bytes, Done done) {
  if (node < 0 || node >= nodes_) throw std::out_of_range("hw storage_write: node " + std::to_string(node));
  ++stats_.storage_writes;
  stats_.requested_write_bytes += bytes;
  stats_.node_write_bytes[node] += bytes;
  auto keys = std::make_shared<std::vector<BlockKey>>(keys_of(blocks, bytes, "storage_write"));
  loop_.begin_op();
  if (keys->empty()) {
    loop_.post(std::move(done));
    return;
  }
  store_->write_blocks(node, *keys, 0,
                       [this, keys, done = std::move(done), node](const std::string& err,
                                                                 BlockStore::Clock::time_point at) {
                         if (!err.empty()) {
                           loop_.post([this, err, node] {
                             fail("storage write on node " + std::to_string(node) + ": " + err);
                           });
                           return;
                         }
                         loop_.post_at(loop_.seconds_at(at), [this, keys, done] {
                           if (opt_.fault == "missing-block" && !fault_done_) {
                             fault_done_ = true;
                             std::error_code ec;
                             std::filesystem::remove(store_->path_of(keys->front()), ec);
                           }
                           done();
                         });
                       });
}

void HwBackend::transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) {
  if (src.gpu < 0 || src.gpu >= gpus_ || dst.gpu < 0 || dst.gpu >= gpus_)
    throw std::out_of_range("hw transfer: gpu out of range");
  ++stats_.transfers;
  stats_.transferred_bytes += bytes;
  loop_.begin_op();
  const uint64_t n = static_cast<uint64_t>(std::llround(std::max(0.0, bytes)));
  if (n == 0) {
    loop_.post(std::move(done));
    return;
  }
  auto job = std::make_shared<TransferJob>();
  job->tr = cls == TrafficClass::Kv ? kv_.get() : model_.get();
  job->src = region(src);
  job->dst = region(dst);
  if (job->src == job->dst) job->dst = region(Place{src.loc == Loc::Hbm ? Loc::Dram : Loc::Hbm, src.gpu});
  job->region = opt_.staging_bytes;
  job->chunk = std::min(opt_.chunk_bytes, opt_.staging_bytes);
  job->left = n;
  job->finish = [this, done = std::move(done), hop](const std::string& err) {
    if (!err.empty()) {
      loop_.post([this, err, hop] { fail(std::string("transfer ") + hop_name(hop) + ": " + err); });
      return;
    }
    loop_.post(done);
  };
  std::unique_lock lk(job->mu);
  job->pump(lk, opt_.chunks_in_flight, job);
}

void HwBackend::compute(int gpu, const ComputeWork& work, Done done) {
  if (gpu < 0 || gpu >= gpus_) throw std::out_of_range("hw compute: gpu " + std::to_string(gpu));
  // Emulated compute: no GPU work is done; the engine is busy for the cost model's predicted time.
  ++stats_.computes;
  stats_.emulated_compute_seconds += work.seconds;
  loop_.timer(std::max(0.0, work.seconds), std::move(done));
}

void HwBackend::timer(double delay, Done done) {
  ++stats_.timers;
  loop_.timer(std::max(0.0, delay), std::move(done));
}

}  // namespace dualpath::hw
