#include "sim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/backend/run_errors.hpp"

namespace dualpath::sim {

namespace {

// The checks run on every transfer, so a message is built only when one fails (a std::string argument would be
// allocated every time: these literals are longer than the small-string buffer).
void require(bool ok, const char* msg) {
  if (!ok) throw std::invalid_argument(std::string("simulator: ") + msg);
}
void require_in_range(int v, int end, const char* what) {
  if (v < 0 || v >= end)
    throw std::invalid_argument(std::string("simulator: ") + what + " " + std::to_string(v) + " out of range");
}

}  // namespace

void Simulator::storage_read(int node, const BlockRanges&, double bytes, Done done, Failed failed) {
  const Fabric& f = fabric();
  require_in_range(node, f.nodes(), "storage_read: node");
  storage_io(node, f.storage(f.server_of(node)), f.sdram(node), bytes, std::move(done), std::move(failed));
}

void Simulator::storage_read_to_hbm(int gpu, const BlockRanges&, double bytes, Done done, Failed failed) {
  const Fabric& f = fabric();
  require_in_range(gpu, f.gpus(), "storage_read_to_hbm: gpu");
  require(f.gdr(), "storage_read_to_hbm: the topology reads storage into host memory (topology.storage.gdr is false)");
  const int node = gpu / f.gpus_per_node();
  storage_io(node, f.storage(f.server_of(node)), f.hbm(gpu), bytes, std::move(done), std::move(failed));
}

void Simulator::storage_write(int node, const BlockRanges&, double bytes, Done done, Failed failed) {
  const Fabric& f = fabric();
  require_in_range(node, f.nodes(), "storage_write: node");
  storage_io(node, f.sdram(node), f.storage(f.server_of(node)), bytes, std::move(done), std::move(failed));
}

void Simulator::storage_io(int node, int src, int dst, double bytes, Done done, Failed failed) {
  if (!track_io_) {
    transfer_checked(src, dst, bytes, TrafficClass::Kv, std::move(done));
    return;
  }
  // A completion already queued when a fault fails the I/O must not run: `live` guards it.
  auto live = std::make_shared<bool>(true);
  const uint64_t key = ++io_keys_;
  if (io_.size() <= static_cast<size_t>(node)) io_.resize(static_cast<size_t>(node) + 1);
  Done guarded = [this, node, key, live, done = std::move(done)] {
    if (!*live) return;
    auto& list = io_[static_cast<size_t>(node)];
    list.erase(std::find_if(list.begin(), list.end(), [key](const StorageIo& io) { return io.key == key; }));
    done();
  };
  const uint64_t flow = transfer_checked(src, dst, bytes, TrafficClass::Kv, std::move(guarded));
  io_[static_cast<size_t>(node)].push_back({key, flow, live, std::move(failed)});
}

void Simulator::fail_storage_io(int node, const std::string& why) {
  require_running();
  if (node < 0 || static_cast<size_t>(node) >= io_.size()) return;
  std::vector<StorageIo> list;
  list.swap(io_[static_cast<size_t>(node)]);
  for (StorageIo& io : list) {
    *io.live = false;
    cancel_flow(io.flow);
    if (!io.failed) throw std::logic_error("simulator: a storage I/O failed by a fault has no failure callback");
    add_timer(0, [failed = std::move(io.failed), why] { failed(why); });
  }
}

void Simulator::scale_snic(int node, double factor) {
  require(factor > 0, "scale_snic: factor must be > 0");
  const auto& links = fabric().links();
  for (size_t i = 0; i < links.size(); ++i)
    if ((links[i].cls == LinkClass::SnicDown || links[i].cls == LinkClass::SnicUp) && links[i].node == node)
      scale_link(static_cast<int>(i), factor);
}

void Simulator::scale_storage(double factor) {
  require(factor > 0, "scale_storage: factor must be > 0");
  const auto& links = fabric().links();
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i].cls == LinkClass::Storage) scale_link(static_cast<int>(i), factor);
}

std::pair<int, int> Simulator::transfer_ends(Hop hop, Place src, Place dst) const {
  const Fabric& f = fabric();
  auto endpoint = [&f](Place pl) {
    require_in_range(pl.gpu, f.gpus(), "transfer: gpu");
    return pl.loc == Loc::Hbm ? f.hbm(pl.gpu) : f.dram(pl.gpu);
  };
  const int s = endpoint(src);
  const int d = endpoint(dst);
  require(s != d, "transfer: source and destination are the same memory");
  // The hop names what the core believes it is moving; a mismatch with the places is a core bug.
  const bool from_hbm = src.loc == Loc::Hbm, to_hbm = dst.loc == Loc::Hbm;
  switch (hop) {
    case Hop::H2D: require(!from_hbm && to_hbm && src.gpu == dst.gpu, "H2D must be DRAM -> HBM of one GPU"); break;
    case Hop::D2H: require(from_hbm && !to_hbm && src.gpu == dst.gpu, "D2H must be HBM -> DRAM of one GPU"); break;
    case Hop::HbmToRemoteDram: require(from_hbm && !to_hbm, "HbmToRemoteDram must be HBM -> DRAM"); break;
    case Hop::RemoteDramToHbm: require(!from_hbm && to_hbm, "RemoteDramToHbm must be DRAM -> HBM"); break;
    case Hop::Collective: require(from_hbm && to_hbm, "Collective must be HBM -> HBM"); break;
    case Hop::RemoteHbmToHbm: require(from_hbm && to_hbm, "RemoteHbmToHbm must be HBM -> HBM"); break;
    case Hop::PoolRead:
    case Hop::PoolWrite:
      require(!from_hbm && !to_hbm && src.gpu / f.gpus_per_node() != dst.gpu / f.gpus_per_node(),
              "pool transfers must be DRAM -> DRAM of two nodes");
      break;
  }
  return {s, d};
}

void Simulator::transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass cls, Done done) {
  const auto [s, d] = transfer_ends(hop, src, dst);
  transfer_checked(s, d, bytes, cls, std::move(done));
}

void Simulator::transfer_group(Hop hop, const std::vector<GroupPart>& parts, TrafficClass cls, Done done) {
  require_running();
  require(!parts.empty(), "transfer_group: a group needs at least one transfer");
  require(static_cast<bool>(done), "empty completion callback");
  std::vector<GroupFlow> flows;
  flows.reserve(parts.size());
  for (const GroupPart& p : parts) {
    require(std::isfinite(p.bytes) && p.bytes >= 0, "transfer size must be a finite number >= 0");
    const auto [s, d] = transfer_ends(hop, p.src, p.dst);
    flows.push_back(GroupFlow{s, d, p.bytes});
  }
  start_flow_group(flows, cls, std::move(done));
}

void Simulator::start_flow_group(const std::vector<GroupFlow>& flows, TrafficClass cls, Done done) {
  const Done one = after_all(flows.size(), std::move(done));
  for (const GroupFlow& f : flows) start_flow(f.src, f.dst, f.bytes, cls, one);
}

void Simulator::compute(int gpu, const ComputeWork& work, Done done) {
  require_in_range(gpu, fabric().gpus(), "compute: gpu");
  timer(work.seconds, std::move(done));
}

void Simulator::timer(double delay, Done done) {
  require_running();
  require(std::isfinite(delay) && delay >= 0, "timer delay must be a finite number >= 0");
  require(static_cast<bool>(done), "empty completion callback");
  add_timer(delay, std::move(done));
}

uint64_t Simulator::transfer_checked(int src, int dst, double bytes, TrafficClass cls, Done done) {
  require_running();
  require(std::isfinite(bytes) && bytes >= 0, "transfer size must be a finite number >= 0");
  require(static_cast<bool>(done), "empty completion callback");
  return start_flow(src, dst, bytes, cls, std::move(done));
}

void Simulator::check_horizon(double next) {
  if (!(next > kHorizonSeconds) || std::isinf(next)) return;
  std::ostringstream m;
  m << "simulated time would jump to " << next << " s, past the " << kHorizonSeconds
    << "-s horizon (30 years): a duration in the scenario is far too long for the run to progress; check "
       "workload.think_time (or the trace's think_seconds), topology.nic_latency, topology.storage.latency and "
       "bandwidths near zero";
  throw NoProgressError(m.str());
}

void Simulator::require_running() const {
  if (!in_run_)
    throw std::logic_error("simulator: work can only be started from run()'s start or completion callbacks");
}

}  // namespace dualpath::sim
