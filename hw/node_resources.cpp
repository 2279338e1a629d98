#include "hw/node_resources.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>

namespace dualpath::hw {

size_t block_bytes_of(const Scenario& sc) {
  const double block = sc.model.kv_bytes_per_token() * sc.policy.block_tokens;
  if (!(block >= 1)) throw std::invalid_argument("hw: a Full Block must hold at least one byte");
  return static_cast<size_t>(std::llround(block));
}

NodeAgentOptions agent_options(const HwOptions& opt) {
  NodeAgentOptions ao;
  ao.staging_bytes = opt.staging_bytes;
  ao.chunk_bytes = opt.chunk_bytes;
  ao.chunks_in_flight = opt.chunks_in_flight;
  if (opt.fault == HwFault::MissingBlock || opt.fault == HwFault::SnicDown) ao.fault = opt.fault;
  return ao;
}

void clear_storage_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (std::filesystem::exists(dir, ec))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".blk") std::filesystem::remove(e.path(), ec);
}

NodeResources::~NodeResources() {
  kv.reset();  // transports unregister the memory before it is freed
  model.reset();
  store.reset();
  for (char* p : memory) std::free(p);
}

nlohmann::json NodeResources::describe() const {
  const auto ss = store->stats();
  return {{"storage_engine", store->engine()},
          {"kv_transport", kv->name()},
          {"model_transport", model->name()},
          {"transport_fallback", kv->is_fallback() || model->is_fallback()},
          {"storage",
           {{"file_bytes_read", ss.bytes_read},
            {"file_bytes_written", ss.bytes_written},
            {"blocks_read", ss.blocks_read},
            {"blocks_written", ss.blocks_written},
            {"blocks_verified", ss.blocks_verified},
            {"errors", ss.errors}}}};
}

std::unique_ptr<NodeResources> make_node_resources(const Scenario& sc, const HwOptions& opt, int first_gpu, int gpus,
                                                   int buckets, bool peer_mode) {
  if (opt.storage_dir.empty()) throw std::invalid_argument("hw: a storage directory is required");
  if (opt.staging_bytes < 4096 || opt.chunk_bytes == 0) throw std::invalid_argument("hw: staging too small");
  auto r = std::make_unique<NodeResources>();
  r->block_bytes = block_bytes_of(sc);
  r->snic_rate = opt.snic_rate > 0 ? opt.snic_rate : sc.topology.snic_bw;

  BlockStoreOptions so;
  so.dir = opt.storage_dir;
  so.block_bytes = r->block_bytes;
  so.nodes = buckets;
  so.read_rate = r->snic_rate;
  so.write_rate = r->snic_rate;
  so.io_uring = opt.io_uring;
  so.direct = opt.direct;
  so.verify_every = opt.verify_every;
  r->store = std::make_unique<BlockStore>(so);

  TransportOptions to;
  to.kind = opt.transport;
  to.tls = opt.ucx_tls;
  to.peer_mode = peer_mode;
  if (peer_mode) {
    if (opt.transport != TransportKind::Ucx) throw std::invalid_argument("hw: multi-process runs need --transport ucx");
    // No memcpy stand-in across processes: UCX must work, or the run stops here with UCX's reason.
    to.label = "kv";
    r->kv = make_ucx_transport(to);
    to.label = "model";
    r->model = make_ucx_transport(to);
  } else {
    to.label = "kv";
    r->kv = make_transport(to);
    to.label = "model";
    r->model = make_transport(to);
  }
  for (int i = 0; i < 2 * gpus; ++i) {
    void* p = std::aligned_alloc(4096, opt.staging_bytes);
    if (!p) throw std::bad_alloc();
    std::memset(p, first_gpu * 2 + i, opt.staging_bytes);  // touch the pages: no page faults in the first transfers
    r->memory.push_back(static_cast<char*>(p));
    const int a = r->kv->register_region(p, opt.staging_bytes);
    const int b = r->model->register_region(p, opt.staging_bytes);
    if (a != i || b != i) throw std::logic_error("hw: transport region ids out of order");
  }
  return r;
}

}  // namespace dualpath::hw
