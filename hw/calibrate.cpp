#include "hw/calibrate.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "hw/block_store.hpp"
#include "hw/transport.hpp"

namespace dualpath::hw {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Moves `total` bytes from region 0 to region 1 in `chunk` operations, 4 in flight; returns bytes/s.
double transport_rate(Transport& tr, char* a, char* b, size_t chunk, size_t total, bool put) {
  std::mutex mu;
  std::condition_variable cv;
  size_t issued = 0, done = 0;
  int inflight = 0;
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lk(mu);
  while (done < total) {
    while (issued < total && inflight < 4 && err.empty()) {
      const size_t n = std::min(chunk, total - issued);
      issued += n, ++inflight;
      lk.unlock();
      auto cb = [&, n](const std::string& e) {
        std::lock_guard g(mu);
        if (!e.empty()) err = e;
        done += n, --inflight;
        cv.notify_one();
      };
      if (put) tr.put(0, 0, 1, 0, n, cb);
      else tr.get(0, 0, 1, 0, n, cb);
      lk.lock();
    }
    cv.wait(lk, [&] { return !err.empty() || done >= total || (issued < total && inflight < 4); });
    if (!err.empty()) {
      cv.wait(lk, [&] { return inflight == 0; });
      throw std::runtime_error(err);
    }
  }
  (void)a, (void)b;
  return static_cast<double>(total) / seconds_since(t0);
}

}  // namespace

nlohmann::json calibrate(const CalibrateOptions& o) {
  nlohmann::json out;
  // Storage: write then read back `blocks` Full Blocks, every checksum verified, no pacing.
  {
    BlockStoreOptions so;
    so.dir = o.storage_dir;
    so.block_bytes = o.block_bytes;
    so.io_uring = o.io_uring;
    so.direct = o.direct;
    so.queue_depth = 16;
    so.verify_every = 1;
    BlockStore store(so);
    std::vector<BlockKey> keys;
    for (int i = 0; i < o.blocks; ++i) keys.push_back(BlockKey{1u << 30, static_cast<uint32_t>(i)});
    auto t0 = std::chrono::steady_clock::now();
    std::string err = store.write_sync(0, keys);
    const double tw = seconds_since(t0);
    if (!err.empty()) throw std::runtime_error("calibrate: " + err);
    t0 = std::chrono::steady_clock::now();
    err = store.read_sync(0, keys);
    const double tr = seconds_since(t0);
    if (!err.empty()) throw std::runtime_error("calibrate: " + err);
    const auto st = store.stats();
    for (const auto& k : keys) std::filesystem::remove(store.path_of(k));
    out["storage"] = {{"engine", store.engine()},
                      {"dir", o.storage_dir},
                      {"block_bytes", o.block_bytes},
                      {"blocks", o.blocks},
                      {"write_bytes_per_s", static_cast<double>(st.bytes_written) / tw},
                      {"read_bytes_per_s", static_cast<double>(st.bytes_read) / tr},
                      {"blocks_verified", st.blocks_verified},
                      {"note",
                       "one engine thread also verifies every block's checksum; freshly written files may be in the "
                       "page cache unless O_DIRECT is in use"}};
  }
  // Transport: put (with flush) and get between two registered 64 MiB regions.
  {
    TransportOptions to;
    to.kind = o.transport;
    to.tls = o.ucx_tls;
    to.label = "kv";
    auto tr = make_transport(to);
    const size_t region = std::max<size_t>(o.chunk_bytes, 4096);
    char* a = static_cast<char*>(std::aligned_alloc(4096, region));
    char* b = static_cast<char*>(std::aligned_alloc(4096, region));
    std::memset(a, 1, region);
    std::memset(b, 2, region);
    tr->register_region(a, region);
    tr->register_region(b, region);
    double put = 0, get = 0;
    try {
      put = transport_rate(*tr, a, b, region, o.transport_bytes, true);
      get = transport_rate(*tr, a, b, region, o.transport_bytes, false);
    } catch (...) {
      tr.reset();
      std::free(a), std::free(b);
      throw;
    }
    const std::string name = tr->name();
    const bool fallback = tr->is_fallback();
    tr.reset();
    std::free(a), std::free(b);
    out["transport"] = {{"name", name},
                        {"fallback", fallback},
                        {"chunk_bytes", region},
                        {"bytes", o.transport_bytes},
                        {"put_bytes_per_s", put},
                        {"get_bytes_per_s", get}};
  }
  const double rd = out["storage"]["read_bytes_per_s"].get<double>();
  const double wr = out["storage"]["write_bytes_per_s"].get<double>();
  const double tg = out["transport"]["get_bytes_per_s"].get<double>();
  // What a simulator run of this machine would use: one storage server per node, the measured rates.
  auto rate = [](double v) { return std::to_string(static_cast<long long>(v)) + " B/s"; };
  out["overrides"] = {"topology.storage.ssd_read_bw=" + rate(rd), "topology.storage.ssd_write_bw=" + rate(wr),
                      "topology.cnic_bw=" + rate(tg)};
  out["not_measured"] = {"H2D/D2H bandwidth and per-layer kernel times (no GPU on this machine)"};
  return out;
}

}  // namespace dualpath::hw
