#include "hw/block_store.hpp"
#include "hw/block_io_buffers.hpp"

#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <queue>
#include <stdexcept>
#include <thread>

namespace dualpath::hw {

namespace {

constexpr size_t kAlign = 4096;
constexpr size_t kHeader = 64;
constexpr char kMagic[8] = {'D', 'P', 'K', 'V', 'B', 'L', 'K', '1'};

struct Header {
  char magic[8];
  uint64_t stream;
  uint32_t index;
  uint32_t reserved;
  uint64_t payload;
  uint64_t sum;
  char pad[kHeader - 40];
};
static_assert(sizeof(Header) == kHeader);

size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::string errno_text(int e) { return std::strerror(e); }

struct Batch {
  std::atomic<int> left{0};
  std::mutex mu;
  std::string error;
  BlockStore::Clock::time_point deliver_at{};
  BlockStore::Completion done;
};

struct Op {
  bool write = false;
  bool verify = false;
  BlockKey key;
  std::string path;
  char* buf = nullptr;
  size_t len = 0;      // file bytes to move (padded)
  size_t payload = 0;  // for writes: payload bytes
  size_t moved = 0;    // bytes the read or write returned
  int fd = -1;
  BlockStore::Clock::time_point not_before{};
  std::shared_ptr<Batch> batch;
};

struct LaterOp {
  bool operator()(const Op* a, const Op* b) const { return a->not_before > b->not_before; }
};

}  // namespace

struct BlockStore::Impl {
  BlockStoreOptions opt;
  AlignedBuffers buffers;
  std::vector<std::unique_ptr<SnicPacer>> read_buckets, write_buckets;
  std::atomic<bool> direct{true};
  std::string engine_note;
  std::atomic<uint64_t> counter{0};

  mutable std::mutex stats_mu;
  BlockStoreStats st;

  // Incoming operations (any thread) and the engine's worker threads.
  std::mutex mu;
  std::condition_variable cv;
  std::priority_queue<Op*, std::vector<Op*>, LaterOp> pending;  // by not_before
  bool stop = false;
  std::vector<std::thread> threads;

  // io_uring engine
  bool uring = false;
  io_uring ring{};
  int efd = -1;

  explicit Impl(const BlockStoreOptions& o) : opt(o), buffers(round_up(kHeader + o.block_bytes), kAlign) {
    for (int n = 0; n < o.nodes; ++n) {
      read_buckets.push_back(std::make_unique<SnicPacer>());
      write_buckets.push_back(std::make_unique<SnicPacer>());
    }
    direct = o.direct;
    if (o.io_uring) {
      const int rc = io_uring_queue_init(static_cast<unsigned>(std::max(4, o.queue_depth * 2)), &ring, 0);
      if (rc == 0) {
        efd = ::eventfd(0, EFD_CLOEXEC);
        if (efd < 0) {
          io_uring_queue_exit(&ring);
          engine_note = "pread pool (eventfd: " + errno_text(errno) + ")";
        } else {
          uring = true;
        }
      } else {
        engine_note = "pread pool (io_uring unavailable: " + errno_text(-rc) + ")";
      }
    } else {
      engine_note = "pread pool";
    }
    if (uring) {
      threads.emplace_back([this] { uring_loop(); });
    } else {
      for (int i = 0; i < std::max(1, o.pool_threads); ++i) threads.emplace_back([this] { pool_loop(); });
    }
  }

  ~Impl() {
    {
      std::lock_guard lk(mu);
      stop = true;
    }
    cv.notify_all();
    if (uring) {
      const uint64_t one = 1;
      [[maybe_unused]] auto w = ::write(efd, &one, sizeof one);
    }
    for (auto& t : threads) t.join();
    while (!pending.empty()) {
      Op* op = pending.top();
      pending.pop();
      delete op;
    }
    if (uring) {
      io_uring_queue_exit(&ring);
      ::close(efd);
    }
  }

  void submit(Op* op) {
    {
      std::lock_guard lk(mu);
      pending.push(op);
    }
    if (uring) {
      const uint64_t one = 1;
      [[maybe_unused]] auto w = ::write(efd, &one, sizeof one);
    } else {
      cv.notify_one();
    }
  }

  // Takes a buffer (and, for a write, fills header and payload) when the operation is dispatched, so only the
  // operations in flight hold memory, however far ahead the SNIC pacing has queued the rest.
  void prepare(Op& op) {
    op.buf = buffers.get();
    if (!op.write) return;
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.stream = op.key.stream;
    h.index = op.key.index;
    h.payload = op.payload;
    BlockStore::fill_payload(op.key, op.buf + kHeader, op.payload);
    h.sum = BlockStore::checksum(op.buf + kHeader, op.payload);
    std::memcpy(op.buf, &h, sizeof h);
    std::memset(op.buf + kHeader + op.payload, 0, op.len - kHeader - op.payload);
  }

  // Opens the block file; on EINVAL with O_DIRECT (tmpfs and others) retries buffered from then on.
  std::string open_file(Op& op) {
    const int base = op.write ? (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC);
    for (;;) {
      const bool d = direct.load();
      op.fd = ::open(op.path.c_str(), base | (d ? O_DIRECT : 0), 0644);
      if (op.fd >= 0) return {};
      const int e = errno;
      if (d && e == EINVAL) {
        direct = false;
        continue;
      }
      if (e == ENOENT && !op.write)
        return "missing block file " + op.path + " (stream " + std::to_string(op.key.stream) + ", block " +
               std::to_string(op.key.index) + ")";
      return std::string("cannot open ") + op.path + ": " + errno_text(e);
    }
  }

  // Checks a completed read or write; returns an error text or "".
  std::string check(Op& op, long res) {
    const char* what = op.write ? "write " : "read ";
    if (res < 0) return std::string(what) + op.path + ": " + errno_text(static_cast<int>(-res));
    op.moved = static_cast<size_t>(res);
    if (op.write) {
      if (op.moved != op.len)
        return "short write " + op.path + ": " + std::to_string(res) + " of " + std::to_string(op.len) + " bytes";
      return {};
    }
    // Reads ask for a whole block's file; a stream's last block may be shorter, as its header says.
    if (op.moved < kHeader)
      return "short read " + op.path + ": " + std::to_string(res) + " bytes, less than the block header";
    Header h;
    std::memcpy(&h, op.buf, sizeof h);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return "corrupt block file " + op.path + ": bad magic";
    if (h.stream != op.key.stream || h.index != op.key.index)
      return "block file " + op.path + " holds stream " + std::to_string(h.stream) + " block " +
             std::to_string(h.index) + ", not the requested one";
    if (h.payload > opt.block_bytes) return "corrupt block file " + op.path + ": payload longer than a block";
    const size_t want = round_up(kHeader + h.payload);
    if (op.moved < want)
      return "short read " + op.path + ": " + std::to_string(res) + " of " + std::to_string(want) + " bytes";
    if (op.verify) {
      if (checksum(op.buf + kHeader, h.payload) != h.sum) return "checksum mismatch in block file " + op.path;
      std::lock_guard lk(stats_mu);
      ++st.blocks_verified;
    }
    return {};
  }

  void finish(Op* op, const std::string& err) {
    if (op->fd >= 0) ::close(op->fd);
    {
      std::lock_guard lk(stats_mu);
      if (!err.empty()) ++st.errors;
      else if (op->write) ++st.blocks_written, st.bytes_written += op->moved;
      else ++st.blocks_read, st.bytes_read += op->moved;
    }
    if (op->buf) buffers.put(op->buf);
    auto batch = std::move(op->batch);
    delete op;
    if (!err.empty()) {
      std::lock_guard lk(batch->mu);
      if (batch->error.empty()) batch->error = err;
    }
    if (--batch->left == 0) batch->done(batch->error, batch->deliver_at);
  }

  void uring_loop() {
    int inflight = 0;
    bool poll_armed = false;
    for (;;) {
      if (!poll_armed) {
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        io_uring_prep_poll_add(sqe, efd, POLLIN);
        io_uring_sqe_set_data(sqe, nullptr);
        poll_armed = true;
      }
      // Submit every operation whose pacing start has come, up to the queue depth.
      std::optional<Clock::time_point> next_ready;
      bool stopping = false;
      std::vector<Op*> ready;
      {
        std::lock_guard lk(mu);
        stopping = stop;
        const auto now = Clock::now();
        while (!stopping && !pending.empty() && inflight + static_cast<int>(ready.size()) < opt.queue_depth) {
          Op* op = pending.top();
          if (op->not_before > now) {
            next_ready = op->not_before;
            break;
          }
          pending.pop();
          ready.push_back(op);
        }
      }
      for (Op* op : ready) {
        prepare(*op);
        std::string err = open_file(*op);
        if (!err.empty()) {
          finish(op, err);
          continue;
        }
        io_uring_sqe* sqe = io_uring_get_sqe(&ring);
        if (op->write) io_uring_prep_write(sqe, op->fd, op->buf, static_cast<unsigned>(op->len), 0);
        else io_uring_prep_read(sqe, op->fd, op->buf, static_cast<unsigned>(op->len), 0);
        io_uring_sqe_set_data(sqe, op);
        ++inflight;
      }
      if (stopping && inflight == 0) break;
      io_uring_submit(&ring);
      io_uring_cqe* cqe = nullptr;
      int rc;
      if (next_ready) {
        const auto wait = std::max(Clock::duration::zero(), *next_ready - Clock::now());
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
        __kernel_timespec ts{ns / 1000000000, ns % 1000000000};
        rc = io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
      } else {
        rc = io_uring_wait_cqe(&ring, &cqe);
      }
      if (rc < 0 && rc != -ETIME && rc != -EINTR) {
        // The ring itself failed: fail everything in flight would need tracking; report and stop.
        std::fprintf(stderr, "dualpath hw: io_uring wait failed: %s\n", errno_text(-rc).c_str());
        std::abort();
      }
      unsigned head;
      unsigned seen = 0;
      io_uring_for_each_cqe(&ring, head, cqe) {
        ++seen;
        void* data = io_uring_cqe_get_data(cqe);
        if (!data) {
          uint64_t v;
          [[maybe_unused]] auto r = ::read(efd, &v, sizeof v);
          poll_armed = false;
          continue;
        }
        Op* op = static_cast<Op*>(data);
        --inflight;
        finish(op, check(*op, cqe->res));
      }
      io_uring_cq_advance(&ring, seen);
    }
  }

  void pool_loop() {
    std::unique_lock lk(mu);
    for (;;) {
      if (stop) return;
      if (pending.empty()) {
        cv.wait(lk);
        continue;
      }
      Op* op = pending.top();
      if (op->not_before > Clock::now()) {
        cv.wait_until(lk, op->not_before);
        continue;
      }
      pending.pop();
      lk.unlock();
      prepare(*op);
      std::string err = open_file(*op);
      if (err.empty()) {
        size_t done = 0;
        long res = 0;
        while (done < op->len) {
          const ssize_t r = op->write ? ::pwrite(op->fd, op->buf + done, op->len - done, static_cast<off_t>(done))
                                      : ::pread(op->fd, op->buf + done, op->len - done, static_cast<off_t>(done));
          if (r < 0 && errno == EINTR) continue;
          if (r < 0) {
            res = -errno;
            break;
          }
          if (r == 0) break;
          done += static_cast<size_t>(r);
        }
        err = check(*op, res < 0 ? res : static_cast<long>(done));
      }
      finish(op, err);
      lk.lock();
    }
  }
};

BlockStore::BlockStore(BlockStoreOptions options) : opt_(std::move(options)) {
  if (opt_.block_bytes == 0) throw std::invalid_argument("block store: block_bytes must be > 0");
  if (opt_.nodes < 1) throw std::invalid_argument("block store: nodes must be >= 1");
  std::error_code ec;
  std::filesystem::create_directories(opt_.dir, ec);
  if (ec) throw std::runtime_error("cannot create storage directory " + opt_.dir + ": " + ec.message());
  impl_ = std::make_unique<Impl>(opt_);
}

BlockStore::~BlockStore() = default;

std::string BlockStore::path_of(BlockKey key) const {
  return opt_.dir + "/kv-a" + std::to_string(key.stream) + "-b" + std::to_string(key.index) + ".blk";
}

size_t BlockStore::file_bytes(size_t payload) const { return round_up(kHeader + payload); }

std::string BlockStore::engine() const {
  if (!impl_->uring) return impl_->engine_note;
  return std::string("io_uring") + (impl_->direct ? ", O_DIRECT" : ", buffered (O_DIRECT refused)");
}

BlockStoreStats BlockStore::stats() const {
  std::lock_guard lk(impl_->stats_mu);
  return impl_->st;
}

namespace {
// The shared completion state of one read or write call; nullptr (after completing at once) when there is nothing
// to do.
std::shared_ptr<Batch> open_batch(int node, int nodes, size_t n_keys, BlockStore::Completion done) {
  if (node < 0 || node >= nodes) throw std::out_of_range("block store: node " + std::to_string(node));
  if (n_keys == 0) {
    done({}, BlockStore::Clock::now());
    return nullptr;
  }
  auto batch = std::make_shared<Batch>();
  batch->done = std::move(done);
  batch->left = static_cast<int>(n_keys);
  return batch;
}
}  // namespace

void BlockStore::write_blocks(int node, std::vector<BlockKey> keys, size_t last_payload, Completion done) {
  auto batch = open_batch(node, opt_.nodes, keys.size(), std::move(done));
  if (!batch) return;
  std::vector<Op*> ops;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto* op = new Op;
    op->write = true;
    op->key = keys[i];
    op->path = path_of(keys[i]);
    op->payload = (i + 1 == keys.size() && last_payload > 0) ? std::min(last_payload, opt_.block_bytes) : opt_.block_bytes;
    op->len = file_bytes(op->payload);
    const auto [start, end] = impl_->write_buckets[node]->reserve(opt_.write_rate, op->len);
    op->not_before = start;
    batch->deliver_at = std::max(batch->deliver_at, end);
    op->batch = batch;
    ops.push_back(op);
  }
  for (Op* op : ops) impl_->submit(op);
}

void BlockStore::read_blocks(int node, std::vector<BlockKey> keys, Completion done) {
  auto batch = open_batch(node, opt_.nodes, keys.size(), std::move(done));
  if (!batch) return;
  std::vector<Op*> ops;
  for (const auto& key : keys) {
    auto* op = new Op;
    op->key = key;
    op->path = path_of(key);
    // The file length is unknown until read; every block is read at full size (the last, partial block of a
    // stream is shorter: its short read is expected and checked against the header).
    op->len = file_bytes(opt_.block_bytes);
    const uint64_t n = impl_->counter++;
    op->verify = opt_.verify_every > 0 && n % static_cast<uint64_t>(opt_.verify_every) == 0;
    const auto [start, end] = impl_->read_buckets[node]->reserve(opt_.read_rate, op->len);
    op->not_before = start;
    batch->deliver_at = std::max(batch->deliver_at, end);
    op->batch = batch;
    ops.push_back(op);
  }
  for (Op* op : ops) impl_->submit(op);
}

namespace {
std::string wait_for(const std::function<void(BlockStore::Completion)>& start) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::string error;
  start([&](const std::string& e, BlockStore::Clock::time_point at) {
    std::this_thread::sleep_until(at);
    std::lock_guard lk(mu);
    error = e;
    done = true;
    cv.notify_one();
  });
  std::unique_lock lk(mu);
  cv.wait(lk, [&] { return done; });
  return error;
}
}  // namespace

std::string BlockStore::write_sync(int node, const std::vector<BlockKey>& keys, size_t last_payload) {
  return wait_for([&](Completion c) { write_blocks(node, keys, last_payload, std::move(c)); });
}

std::string BlockStore::read_sync(int node, const std::vector<BlockKey>& keys) {
  return wait_for([&](Completion c) { read_blocks(node, keys, std::move(c)); });
}

}  // namespace dualpath::hw
