// The DRAM pool of policy dram-pool as a KV source (kv_sources.hpp): reads of a hit's blocks that the pool holds,
// from each holding node's DRAM over the compute network into the PE node's DRAM (then H2D as any PE-side read),
// and the write-through of persisted blocks from a decode node's DRAM into the pool. Both are KV traffic (the low
// QoS lane) on the two nodes' CNICs, PCIe and DRAM. Blocks held by the PE's own node are in its DRAM already and
// take no transfer; blocks written to the decode node's own pool share arrive at once.
#include <map>

#include "core/cluster/dram_pool_source.hpp"
#include "core/config/choices.hpp"
#include "core/kv/pool_figures.hpp"

namespace dualpath {

BlockRanges DramPoolSource::missing(const BlockRanges& blocks) const {
  BlockRanges out;
  for (const BlockRange& b : blocks) {
    int64_t at = b.first;  // the blocks of b below `at` are placed (held or missing)
    for (const DramPool::Span& s : pool_->lookup(b.stream, b.first, b.last)) {
      if (at < s.first) out.push_back({b.stream, at, s.first});
      at = s.last;
    }
    if (at < b.last) out.push_back({b.stream, at, b.last});
  }
  return out;
}

KvSource::Served DramPoolSource::read(const Request& r, BlockRanges blocks, const Done& part_done) {
  Served out;
  std::map<int, double> from;  // holding node -> bytes read from it
  const int64_t bt = blocks_.block_tokens();
  for (const BlockRange& b : blocks) {
    int64_t at = b.first;  // the blocks of b below `at` are placed (pool or storage)
    for (const DramPool::Span& s : pool_->lookup(b.stream, b.first, b.last)) {
      if (at < s.first) out.rest.push_back({b.stream, at, s.first});
      const double bytes = layout_.kv_bytes(s.blocks() * bt);
      out.bytes += bytes;
      from[pool_->holder(b.stream)] += bytes;
      at = s.last;
    }
    if (at < b.last) out.rest.push_back({b.stream, at, b.last});
  }
  const int gpn = layout_.gpus_per_node;
  const int pe_node = layout_.node_of(r.pe), local = r.pe % gpn;
  for (const auto& [holder, bytes] : from) {
    if (holder == pe_node) continue;
    ++out.transfers;
    // The holding node's CNIC at the PE GPU's local index (as sim.kv_port = "node" spreads DE buffer traffic).
    be_.transfer(Hop::PoolRead, Place{Loc::Dram, holder * gpn + local}, Place{Loc::Dram, r.pe}, bytes,
                 TrafficClass::Kv, part_done);
  }
  return out;
}

void DramPoolSource::write_through(int node, const BlockRanges& blocks) {
  std::map<int, BlockRanges> to;  // holding node -> the blocks it takes
  for (const BlockRange& b : blocks) to[pool_->holder(b.stream)].push_back(b);
  const int64_t bt = blocks_.block_tokens();
  const int gpn = layout_.gpus_per_node;
  for (auto& [holder, ranges] : to) {
    const double bytes = layout_.kv_bytes(BlockIndex::block_count(ranges) * bt);
    totals_.pool_write += bytes;
    auto arrived = [this, ranges = std::move(ranges)] {
      for (const BlockRange& b : ranges) pool_->put(b.stream, b.first, b.last, be_.now());
    };
    if (holder == node) {
      arrived();
      continue;
    }
    be_.transfer(Hop::PoolWrite, Place{Loc::Dram, node * gpn + holder % gpn},
                 Place{Loc::Dram, holder * gpn + node % gpn}, bytes, TrafficClass::Kv, std::move(arrived));
  }
}

void DramPoolSource::report(double end, const TransferTotals& t, nlohmann::json& summary) const {
  const double bb = pool_->block_bytes();
  const double hit = t.pool_read + t.storage_read;
  PoolFigures p;
  p.bytes_per_node = spec_.bytes_per_node;
  p.eviction = name_of(spec_.eviction);
  p.nodes = pool_->nodes();
  p.capacity_bytes = static_cast<double>(pool_->capacity_blocks()) * bb * pool_->nodes();
  p.occupancy_mean_bytes = pool_->mean_used_blocks(end) * bb;
  p.occupancy_peak_node_bytes = static_cast<double>(pool_->peak_node_blocks()) * bb;
  p.occupancy_end_bytes = static_cast<double>(pool_->used_blocks()) * bb;
  p.hit_bytes_from_pool = t.pool_read;
  p.hit_bytes_from_storage = t.storage_read;
  p.pool_hit_share = hit > 0 ? t.pool_read / hit : 0.0;
  p.written_bytes = t.pool_write;
  p.put_bytes = static_cast<double>(pool_->put_blocks()) * bb;
  p.evicted_bytes = static_cast<double>(pool_->evicted_blocks()) * bb;
  p.refused_bytes = static_cast<double>(pool_->refused_blocks()) * bb;
  summary["pool"] = p;
}

void DramPoolSource::report_use(double end, const TransferTotals& t, ResourceUse& u) const {
  const double cap = static_cast<double>(pool_->capacity_blocks());
  const double hit = t.pool_read + t.storage_read;
  u.pool = true;
  u.pool_mean = cap > 0 ? pool_->mean_used_blocks(end) / (cap * pool_->nodes()) : 0;
  u.pool_peak = cap > 0 ? static_cast<double>(pool_->peak_node_blocks()) / cap : 0;
  u.pool_hit_share = hit > 0 ? t.pool_read / hit : 0;
  u.pool_evicted_bytes = static_cast<double>(pool_->evicted_blocks()) * pool_->block_bytes();
}

void register_dram_pool_source() {
  register_kv_source("dram-pool", [](const KvSourceContext& c) -> std::unique_ptr<KvSource> {
    if (!c.features.dram_pool) return nullptr;
    const PolicySpec& p = c.scenario.policy;
    const Deployment& d = c.scenario.deployment;
    const double block_bytes = c.layout.kv_bytes(p.block_tokens);
    return std::make_unique<DramPoolSource>(
        std::make_unique<DramPool>(d.prefill_nodes + d.decode_nodes,
                                   static_cast<int64_t>(p.pool.bytes_per_node / block_bytes), block_bytes,
                                   p.pool.eviction),
        p.pool, c.backend, c.blocks, c.layout, c.totals);
  });
}

}  // namespace dualpath
