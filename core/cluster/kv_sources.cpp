// The KV-tier chain and its registry (kv_sources.hpp): the built-in tiers, one line each, and the choice of a run's.
#include "core/cluster/kv_sources.hpp"

#include <map>
#include <utility>

namespace dualpath {

void register_dram_pool_source();  // dram_pool_source.cpp

namespace {

std::map<std::string, KvSourceFactory>& table() {
  static std::map<std::string, KvSourceFactory> t;
  return t;
}

// Called once before the first choice: a static library drops an object file nothing references, so the built-in
// tiers register through these calls rather than through static initialisers in their own files.
void register_builtin_kv_sources() { register_dram_pool_source(); }

}  // namespace

bool KvSources::serves_alone(int agent, int64_t first_block, int64_t last_block) const {
  if (tiers_.empty()) return false;
  BlockRanges rest = blocks_.ranges(agent, first_block, last_block);
  for (const auto& t : tiers_) {
    if (rest.empty()) break;
    rest = t->missing(rest);
  }
  return rest.empty();
}

KvSources::Split KvSources::read(const Request& r, BlockRanges blocks, double bytes, const Done& part_done) {
  if (tiers_.empty()) return {std::move(blocks), bytes, 0, 0};
  Split out;
  for (const auto& t : tiers_) {
    KvSource::Served s = t->read(r, std::move(blocks), part_done);
    out.other_bytes += s.bytes;
    out.transfers += s.transfers;
    blocks = std::move(s.rest);
  }
  out.storage_bytes = layout_.kv_bytes(BlockIndex::block_count(blocks) * blocks_.block_tokens());
  out.storage = std::move(blocks);
  return out;
}

bool register_kv_source(const std::string& name, KvSourceFactory factory) {
  table().insert_or_assign(name, std::move(factory));
  return true;
}

std::unique_ptr<KvSources> make_kv_sources(const KvSourceContext& context) {
  static const bool once = [] {
    register_builtin_kv_sources();
    return true;
  }();
  (void)once;
  auto chain = std::make_unique<KvSources>(context.blocks, context.layout);
  for (const auto& [name, factory] : table())
    if (std::unique_ptr<KvSource> s = factory(context)) chain->add(std::move(s));
  return chain;
}

}  // namespace dualpath
