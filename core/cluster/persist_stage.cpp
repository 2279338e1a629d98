// Persistence writes to storage (persist_stage.hpp): filled blocks batched per decode engine and flushed, writes
// parked while the node's SNIC is down, written again when a fault fails them, undone with a lost node or unit.
#include "core/cluster/persist_stage.hpp"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace dualpath {

PersistStage::PersistStage(Backend& be, const ClusterView& view, const ClusterLayout& layout, BlockIndex& blocks,
                           TransferTotals& totals, KvSources& sources, FaultBook& faults, StageSignals& signals,
                           double persist_flush_bytes)
    : be_(be),
      view_(view),
      layout_(layout),
      blocks_(blocks),
      totals_(totals),
      sources_(sources),
      faults_(faults),
      signals_(signals),
      persist_flush_bytes_(persist_flush_bytes),
      parked_(view.nodes.size()),
      inflight_(view.nodes.size()),
      unflushed_bytes_(view.engines.size(), 0),
      unflushed_blocks_(view.engines.size()) {}

void PersistStage::persist(int node, int64_t write, const BlockRanges& blocks, double bytes, Done done) {
  if (!faults_.any()) {
    be_.storage_write(node, blocks, bytes, std::move(done));
    return;
  }
  if (!live(node, write)) return;  // lost with its node (node_down unclaimed its blocks)
  if (!view_.nodes[node].snic_up) {
    parked_[static_cast<size_t>(node)].push_back(
        [this, node, write, blocks, bytes, done = std::move(done)]() mutable {
          persist(node, write, blocks, bytes, std::move(done));
        });
    return;
  }
  auto shared_done = std::make_shared<Done>(std::move(done));
  be_.storage_write(
      node, blocks, bytes,
      [this, node, write, shared_done] {
        if (!live(node, write)) return;
        if (write >= 0) inflight_[static_cast<size_t>(node)].erase(write);
        (*shared_done)();
      },
      [this, node, write, blocks, bytes, shared_done](const std::string&) {
        if (!live(node, write)) return;
        const int f = faults_.down_fault(node);
        if (f < 0) throw std::logic_error("cluster: a storage write failed with no fault on its node");
        FaultRecord& rec = faults_[static_cast<size_t>(f)];
        ++rec.writes_failed;
        rec.bytes_rewritten += bytes;
        persist(node, write, blocks, bytes, [shared_done] { (*shared_done)(); });
      });
}

int64_t PersistStage::track(int node, const BlockRanges& blocks, std::vector<int> agents, double bytes) {
  if (!track_) return -1;
  const int64_t id = next_++;
  inflight_[static_cast<size_t>(node)].emplace(id, InflightWrite{blocks, std::move(agents), bytes});
  return id;
}


void PersistStage::on_snic_back(int node) {
  std::vector<Done> parked;
  parked.swap(parked_[static_cast<size_t>(node)]);
  for (Done& w : parked) w();
}

void PersistStage::on_node_lost(int node, FaultRecord& rec) {
  for (auto& [id, w] : inflight_[static_cast<size_t>(node)]) {
    blocks_.unclaim(w.blocks);
    for (int agent : w.agents) blocks_.write_finished(agent);
    rec.writes_lost += w.bytes;
  }
  inflight_[static_cast<size_t>(node)].clear();
  parked_[static_cast<size_t>(node)].clear();
}

void PersistStage::add_filled(int gpu, double bytes, std::vector<AgentWrite> writes) {
  unflushed_bytes_[static_cast<size_t>(gpu)] += bytes;
  auto& into = unflushed_blocks_[static_cast<size_t>(gpu)];
  for (auto& w : writes) into.push_back(std::move(w));
}

void PersistStage::flush(const std::vector<int>& engines, const std::vector<bool>& forced, bool full_ones) {
  // Persists the blocks that filled up: D2H through the engine's CNIC, then the node's SNIC to storage. An
  // engine's blocks are batched until one of its requests finishes (the agent's next read needs them) or
  // persist_flush_bytes accumulate; the D2H copies of a node are followed by one storage write.
  struct NodeFlush {
    int pending = 0;
    double bytes = 0;
    std::vector<AgentWrite> writes;
    int64_t write = -1;  // its entry among the node's writes in flight (track)
  };
  std::map<int, std::shared_ptr<NodeFlush>> flushes;
  for (size_t i = 0; i < engines.size(); ++i) {
    const int gpu = engines[i];
    double& unflushed = unflushed_bytes_[static_cast<size_t>(gpu)];
    auto& unflushed_blocks = unflushed_blocks_[static_cast<size_t>(gpu)];
    const bool full = full_ones && unflushed >= persist_flush_bytes_;
    if (unflushed <= 0 || !(forced[i] || full)) continue;
    auto& nf = flushes[layout_.node_of(gpu)];
    if (!nf) nf = std::make_shared<NodeFlush>();
    nf->pending += 1;
    nf->bytes += unflushed;
    for (auto& w : unflushed_blocks) nf->writes.push_back(std::move(w));
    const double bytes = unflushed;
    unflushed = 0;
    unflushed_blocks.clear();
    totals_.d2h += bytes;
    auto flush = nf;
    const int node = layout_.node_of(gpu);
    be_.transfer(Hop::D2H, Place{Loc::Hbm, gpu}, Place{Loc::Dram, gpu}, bytes, TrafficClass::Kv,
                 [this, flush, node] {
                   if (--flush->pending > 0 || !live(node, flush->write)) return;
                   totals_.storage_write += flush->bytes;
                   BlockRanges blocks;
                   for (const auto& w : flush->writes) blocks.insert(blocks.end(), w.blocks.begin(), w.blocks.end());
                   sources_.write_through(node, blocks);  // beside the storage write
                   persist(node, flush->write, blocks, flush->bytes, [this, flush] {
                     for (const auto& w : flush->writes) {
                       blocks_.persist(w.blocks);
                       blocks_.write_finished(w.agent);
                     }
                     signals_.reads_may_start();  // reads waiting for these blocks' write (WriteWait)
                   });
                 });
  }
  if (tracking())  // a node can be lost: its flushes in flight are undone with it (on_node_lost)
    for (auto& [node, nf] : flushes) {
      BlockRanges blocks;
      std::vector<int> agents;
      for (const auto& w : nf->writes) {
        blocks.insert(blocks.end(), w.blocks.begin(), w.blocks.end());
        agents.push_back(w.agent);
      }
      nf->write = track(node, blocks, std::move(agents), nf->bytes);
    }
}

void PersistStage::on_engines_lost(const std::vector<int>& engines, FaultRecord& rec) {
  for (int gpu : engines) {
    auto& unflushed_blocks = unflushed_blocks_[static_cast<size_t>(gpu)];
    for (const AgentWrite& w : unflushed_blocks) {
      blocks_.unclaim(w.blocks);
      blocks_.write_finished(w.agent);
    }
    rec.writes_lost += unflushed_bytes_[static_cast<size_t>(gpu)];
    unflushed_blocks.clear();
    unflushed_bytes_[static_cast<size_t>(gpu)] = 0;
  }
}

}  // namespace dualpath
