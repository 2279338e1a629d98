// The KV-source registry (kv_sources.hpp): the built-in sources, one line each, and the choice of a run's.
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
// sources register through these calls rather than through static initialisers in their own files.
void register_builtin_kv_sources() { register_dram_pool_source(); }

}  // namespace

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
  for (const auto& [name, factory] : table())
    if (std::unique_ptr<KvSources> s = factory(context)) return s;
  return std::make_unique<StorageSource>();
}

}  // namespace dualpath
