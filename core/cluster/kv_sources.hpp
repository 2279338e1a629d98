// Where a storage read's hit KV comes from: a chain of KV tiers in front of storage, front to back, each serving the
// blocks it holds and leaving the rest to the tiers behind it, storage last (every policy but dram-pool has no
// tier: storage alone). The read stage (read_stage.cpp) and the persistence of blocks (persist_stage.cpp,
// kv_io_storage.cpp) ask the chain and never which tier or policy: persisted blocks are written through to every
// tier, and each tier writes its own sections of the run's report. Tiers are registered by name
// (register_kv_source); the Cluster asks make_kv_sources for the run's chain at construction, and each registered
// factory says whether the run wants its tier (the DRAM pool's: PolicyFeatures::dram_pool). A local flash tier, a
// CPU-memory cache and the like are one more KvSource each (docs/architecture.md "How to add a KV tier";
// tests/core/kv_source_extension_test.cpp chains one behind the DRAM pool). A tier serves into the reading node's
// DRAM buffer; a prefix kept in decode HBM (pe-pull-from-de) is not a tier but a read path of its own (de-hbm):
// it decides the round's decode engine and moves GPU to GPU (core/kv/de_residency.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend/backend.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/config/scenario.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/metrics/wait_report.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

// One tier in front of storage.
class KvSource {
 public:
  // What a tier served of a read: the blocks it left (for the tiers behind it), the bytes it serves and the
  // transfers it started for them (each ends in the read's `part_done`).
  struct Served {
    BlockRanges rest;
    double bytes = 0;
    int transfers = 0;
  };
  virtual ~KvSource() = default;
  // Of `blocks`, those it does not hold.
  virtual BlockRanges missing(const BlockRanges& blocks) const = 0;
  // Starts reading, for request `r`, those of `blocks` it holds.
  virtual Served read(const Request& r, BlockRanges blocks, const Done& part_done) = 0;
  // Blocks persisted from `node`'s DRAM, written through to it beside the storage write.
  virtual void write_through(int node, const BlockRanges& blocks) = 0;
  // Its sections of the run's report over [0, end): summary.json's keys (`summary`) and the "what binds"
  // utilisation figures (`use`). Nothing by default.
  virtual void report(double /*end*/, const TransferTotals& /*totals*/, nlohmann::json& /*summary*/) const {}
  virtual void report_use(double /*end*/, const TransferTotals& /*totals*/, ResourceUse& /*use*/) const {}
};

// The run's chain.
class KvSources {
 public:
  // A read of some blocks, split by source: the blocks (and bytes) left for storage, the bytes the tiers serve, and
  // the transfers started for them (each ends in the read's `part_done`).
  struct Split {
    BlockRanges storage;
    double storage_bytes = 0;
    double other_bytes = 0;
    int transfers = 0;
  };
  KvSources(const BlockIndex& blocks, const ClusterLayout& layout) : blocks_(blocks), layout_(layout) {}

  void add(std::unique_ptr<KvSource> tier) { tiers_.push_back(std::move(tier)); }  // behind those added before
  // Whether the agent's blocks [first, last) need no storage read at all (the read then takes no SNIC slot).
  bool serves_alone(int agent, int64_t first_block, int64_t last_block) const;
  // Starts reading, for request `r`, those of `blocks` (`bytes` from storage) that the tiers hold.
  Split read(const Request& r, BlockRanges blocks, double bytes, const Done& part_done);
  void write_through(int node, const BlockRanges& blocks) {
    for (const auto& t : tiers_) t->write_through(node, blocks);
  }
  void report(double end, const TransferTotals& totals, nlohmann::json& summary) const {
    for (const auto& t : tiers_) t->report(end, totals, summary);
  }
  void report_use(double end, const TransferTotals& totals, ResourceUse& use) const {
    for (const auto& t : tiers_) t->report_use(end, totals, use);
  }
  // The first tier of type T (nullptr: none), for tests and tools that know the tier they look for.
  template <class T>
  const T* find() const {
    for (const auto& t : tiers_)
      if (const T* p = dynamic_cast<const T*>(t.get())) return p;
    return nullptr;
  }

 private:
  const BlockIndex& blocks_;
  const ClusterLayout& layout_;
  std::vector<std::unique_ptr<KvSource>> tiers_;
};

// What a tier is built from: the Cluster's own, at construction (each outlives the tier).
struct KvSourceContext {
  const Scenario& scenario;
  const PolicyFeatures& features;  // the policy's, ablation toggles applied
  Backend& backend;
  const BlockIndex& blocks;
  const ClusterLayout& layout;
  TransferTotals& totals;  // pool_read and the like, for summary.json's bytes
};
// A tier for this run when it wants one (its policy's features or its scenario say so), nullptr otherwise.
using KvSourceFactory = std::function<std::unique_ptr<KvSource>(const KvSourceContext&)>;

// Adds (or replaces) the tier called `name`; returns true, so a file can register at static initialisation.
// The built-in ones are registered by register_builtin_kv_sources() (kv_sources.cpp), one line each.
bool register_kv_source(const std::string& name, KvSourceFactory factory);
// The run's chain: every registered tier whose factory builds one, in name order, front to back; empty (storage
// alone) when none does.
std::unique_ptr<KvSources> make_kv_sources(const KvSourceContext& context);

}  // namespace dualpath
