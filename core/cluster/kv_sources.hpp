// Where a storage read's hit KV comes from: storage alone (every policy but dram-pool), or the distributed DRAM
// pool for the blocks it holds and storage for the rest (policy dram-pool, dram_pool_source.cpp). The read queues
// (read_stage.cpp) and the persistence of blocks (persist_stage.cpp, kv_io_storage.cpp) ask this and never which
// policy runs. Sources are registered by name (register_kv_source); the Cluster asks make_kv_sources for the
// run's at construction, and each registered factory says whether the run wants it (the DRAM pool's:
// PolicyFeatures::dram_pool).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"
#include "core/kv/block_index.hpp"
#include "core/kv/dram_pool.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/policy.hpp"

namespace dualpath {

struct ClusterLayout;

class KvSources {
 public:
  // A read of some blocks, split by source: the blocks (and bytes) left for storage, the bytes other sources
  // serve, and the transfers started for them (each ends in the read's `part_done`).
  struct Split {
    BlockRanges storage;
    double storage_bytes = 0;
    double other_bytes = 0;
    int transfers = 0;
  };
  virtual ~KvSources() = default;
  // Whether the agent's blocks [first, last) need no storage read at all (the read then takes no SNIC slot).
  virtual bool serves_alone(int agent, int64_t first_block, int64_t last_block) const = 0;
  // Starts reading, for request `r`, those of `blocks` (`bytes` from storage) that other sources hold.
  virtual Split read(const Request& r, BlockRanges blocks, double bytes, const Done& part_done) = 0;
  // Blocks persisted from `node`'s DRAM, written through to other sources beside the storage write.
  virtual void write_through(int node, const BlockRanges& blocks) = 0;
  // The DRAM pool, for the run's report (nullptr: none).
  virtual const DramPool* pool() const = 0;
};

// Storage alone.
class StorageSource final : public KvSources {
 public:
  bool serves_alone(int, int64_t, int64_t) const override { return false; }
  Split read(const Request&, BlockRanges blocks, double bytes, const Done&) override {
    return {std::move(blocks), bytes, 0, 0};
  }
  void write_through(int, const BlockRanges&) override {}
  const DramPool* pool() const override { return nullptr; }
};

// The distributed DRAM pool (core/kv/dram_pool.hpp holds its state) in front of storage.
class DramPoolSource final : public KvSources {
 public:
  DramPoolSource(std::unique_ptr<DramPool> pool, Backend& be, const BlockIndex& blocks, const ClusterLayout& layout,
                 TransferTotals& totals)
      : pool_(std::move(pool)), be_(be), blocks_(blocks), layout_(layout), totals_(totals) {}
  bool serves_alone(int agent, int64_t first_block, int64_t last_block) const override;
  Split read(const Request& r, BlockRanges blocks, double bytes, const Done& part_done) override;
  void write_through(int node, const BlockRanges& blocks) override;
  const DramPool* pool() const override { return pool_.get(); }

 private:
  std::unique_ptr<DramPool> pool_;
  Backend& be_;
  const BlockIndex& blocks_;
  const ClusterLayout& layout_;
  TransferTotals& totals_;
};

// What a source is built from: the Cluster's own, at construction (each outlives the source).
struct KvSourceContext {
  const Scenario& scenario;
  const PolicyFeatures& features;  // the policy's, ablation toggles applied
  Backend& backend;
  const BlockIndex& blocks;
  const ClusterLayout& layout;
  TransferTotals& totals;  // pool_read and the like, for summary.json's bytes
};
// A source for this run when it wants one (its policy's features or its scenario say so), nullptr otherwise.
using KvSourceFactory = std::function<std::unique_ptr<KvSources>(const KvSourceContext&)>;

// Adds (or replaces) the source called `name`; returns true, so a file can register at static initialisation.
// The built-in ones are registered by register_builtin_kv_sources() (kv_sources.cpp), one line each.
bool register_kv_source(const std::string& name, KvSourceFactory factory);
// The run's source: the first registered one, in name order, whose factory builds one; storage alone when none does.
std::unique_ptr<KvSources> make_kv_sources(const KvSourceContext& context);

}  // namespace dualpath
