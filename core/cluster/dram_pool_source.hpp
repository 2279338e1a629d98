// The distributed DRAM pool of policy dram-pool as a KV tier (kv_sources.hpp); its state is core/kv/dram_pool.hpp.
// Private to core/cluster/ (tests reach it through KvSources::find<DramPoolSource>()).
#pragma once

#include <memory>

#include "core/cluster/kv_sources.hpp"
#include "core/kv/dram_pool.hpp"

namespace dualpath {

class DramPoolSource final : public KvSource {
 public:
  DramPoolSource(std::unique_ptr<DramPool> pool, const PolicySpec::Pool& spec, Backend& be, const BlockIndex& blocks,
                 const ClusterLayout& layout, TransferTotals& totals)
      : pool_(std::move(pool)), spec_(spec), be_(be), blocks_(blocks), layout_(layout), totals_(totals) {}
  BlockRanges missing(const BlockRanges& blocks) const override;
  Served read(const Request& r, BlockRanges blocks, const Done& part_done) override;
  void write_through(int node, const BlockRanges& blocks) override;
  // summary.json's "pool" section and the "what binds" report's pool utilisation.
  void report(double end, const TransferTotals& totals, nlohmann::json& summary) const override;
  void report_use(double end, const TransferTotals& totals, ResourceUse& use) const override;
  const DramPool& pool() const { return *pool_; }

 private:
  std::unique_ptr<DramPool> pool_;
  PolicySpec::Pool spec_;
  Backend& be_;
  const BlockIndex& blocks_;
  const ClusterLayout& layout_;
  TransferTotals& totals_;
};

}  // namespace dualpath
