#include "hw/calibrate.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "hw/block_store.hpp"
#include "hw/gpu/gpu_calibrate.hpp"
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

// Writes then reads back `blocks` Full Blocks of one stream through a store paced at `rate` (0: unpaced), every
// checksum verified, and removes them again.
struct RoundTrip {
  double write_s = 0, read_s = 0;
  BlockStoreStats stats;
  std::string engine;
  size_t file_bytes_per_block = 0;
};

RoundTrip store_round_trip(const CalibrateOptions& o, double rate, int blocks, uint64_t stream) {
  BlockStoreOptions so;
  so.dir = o.storage_dir;
  so.block_bytes = o.block_bytes;
  so.io_uring = o.io_uring;
  so.direct = o.direct;
  so.queue_depth = 16;
  so.read_rate = rate;
  so.write_rate = rate;
  so.verify_every = 1;
  BlockStore store(so);
  std::vector<BlockKey> keys;
  for (int i = 0; i < blocks; ++i) keys.push_back(BlockKey{stream, static_cast<uint32_t>(i)});
  RoundTrip rt;
  auto t0 = std::chrono::steady_clock::now();
  std::string err = store.write_sync(0, keys);
  rt.write_s = seconds_since(t0);
  if (!err.empty()) throw std::runtime_error("calibrate: " + err);
  t0 = std::chrono::steady_clock::now();
  err = store.read_sync(0, keys);
  rt.read_s = seconds_since(t0);
  if (!err.empty()) throw std::runtime_error("calibrate: " + err);
  for (const auto& k : keys) std::filesystem::remove(store.path_of(k));
  rt.stats = store.stats();
  rt.engine = store.engine();
  rt.file_bytes_per_block = store.file_bytes(o.block_bytes);
  return rt;
}

}  // namespace

nlohmann::json calibrate(const CalibrateOptions& o) {
  nlohmann::json out;
  // Storage: write then read back `blocks` Full Blocks, every checksum verified, no pacing.
  {
    const RoundTrip rt = store_round_trip(o, 0, o.blocks, 1u << 30);
    const auto& st = rt.stats;
    out["storage"] = {{"engine", rt.engine},
                      {"dir", o.storage_dir},
                      {"block_bytes", o.block_bytes},
                      {"blocks", o.blocks},
                      {"write_bytes_per_s", static_cast<double>(st.bytes_written) / rt.write_s},
                      {"read_bytes_per_s", static_cast<double>(st.bytes_read) / rt.read_s},
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
  // Paced SNIC: what one emulated node delivers in KV payload bytes per second (the store paces file bytes).
  if (o.snic_rate > 0) {
    const RoundTrip rt = store_round_trip(o, o.snic_rate, o.paced_blocks, (1u << 30) + 1);
    const double payload = static_cast<double>(o.block_bytes) * o.paced_blocks;
    out["snic"] = {{"rate_bytes_per_s", o.snic_rate},
                   {"block_bytes", o.block_bytes},
                   {"file_bytes_per_block", rt.file_bytes_per_block},
                   {"blocks", o.paced_blocks},
                   {"read_payload_bytes_per_s", payload / rt.read_s},
                   {"write_payload_bytes_per_s", payload / rt.write_s},
                   {"note", "KV payload bytes per second through one node's paced SNIC; the pacing counts file "
                            "bytes (64 B header, 4 KiB padding), so this is below the rate"}};
  }
  nlohmann::json gpu = {{"available", false}, {"reason", "not asked (--compute emulated)"}};
  if (o.compute != ComputeMode::Emulated && o.model && o.gpu) {
    gpu = calibrate_gpu(*o.model, *o.gpu);
    if (o.compute == ComputeMode::Cuda && !gpu.value("available", false))
      throw std::runtime_error("calibrate: --compute cuda but no usable GPU: " + gpu.value("reason", std::string("?")));
  }
  out["gpu"] = gpu;

  // The overlay: what a simulator run of this machine should use (one storage server per node).
  auto rate = [](double v) { return std::to_string(static_cast<long long>(v)) + " B/s"; };
  nlohmann::json set = {{"topology.storage.ssd_read_bw", rate(out["storage"]["read_bytes_per_s"].get<double>())},
                        {"topology.storage.ssd_write_bw", rate(out["storage"]["write_bytes_per_s"].get<double>())},
                        {"topology.cnic_bw", rate(out["transport"]["get_bytes_per_s"].get<double>())}};
  if (out.contains("snic")) set["topology.snic_bw"] = rate(out["snic"]["read_payload_bytes_per_s"].get<double>());
  if (gpu.value("available", false))
    for (const auto& [k, v] : gpu["overrides"].items()) set[k] = v;
  return {{"overlay", 1}, {"description", o.description}, {"measured", out}, {"set", set}};
}

}  // namespace dualpath::hw
