// Persistence writes to storage (storage_writes.hpp): parked while the node's SNIC is down, written again when a
// fault fails them, undone with a lost node.
#include "core/cluster/storage_writes.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace dualpath {

void StorageWrites::persist(int node, int64_t write, const BlockRanges& blocks, double bytes, Done done) {
  if (!hooks_.has_faults()) {
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
        const int f = hooks_.down_fault(node);
        if (f < 0) throw std::logic_error("cluster: a storage write failed with no fault on its node");
        FaultRecord& rec = hooks_.fault(static_cast<size_t>(f));
        ++rec.writes_failed;
        rec.bytes_rewritten += bytes;
        persist(node, write, blocks, bytes, [shared_done] { (*shared_done)(); });
      });
}

int64_t StorageWrites::track(int node, const BlockRanges& blocks, std::vector<int> agents, double bytes) {
  if (!track_) return -1;
  const int64_t id = next_++;
  inflight_[static_cast<size_t>(node)].emplace(id, InflightWrite{blocks, std::move(agents), bytes});
  return id;
}


void StorageWrites::snic_back(int node) {
  std::vector<Done> parked;
  parked.swap(parked_[static_cast<size_t>(node)]);
  for (Done& w : parked) w();
}

void StorageWrites::lose_node(int node, FaultRecord& rec) {
  for (auto& [id, w] : inflight_[static_cast<size_t>(node)]) {
    blocks_.unclaim(w.blocks);
    for (int agent : w.agents) blocks_.write_finished(agent);
    rec.writes_lost += w.bytes;
  }
  inflight_[static_cast<size_t>(node)].clear();
  parked_[static_cast<size_t>(node)].clear();
}

}  // namespace dualpath
