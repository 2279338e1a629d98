#include "sim/fabric.hpp"
#include "core/mutation/mutant.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace dualpath::sim {

namespace {

void require_positive(double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    throw std::invalid_argument(std::string("simulator: topology.") + what + " must be a positive number");
}
void require_non_negative(double v, const char* what) {
  if (!(v >= 0) || !std::isfinite(v))
    throw std::invalid_argument(std::string("simulator: topology.") + what + " must be >= 0");
}

}  // namespace

void Fabric::validate(const Topology& topo, const Deployment& dep) {
  if (topo.gpus_per_node <= 0) throw std::invalid_argument("simulator: topology.gpus_per_node must be > 0");
  if (dep.prefill_nodes < 0 || dep.decode_nodes < 0 || dep.prefill_nodes + dep.decode_nodes <= 0)
    throw std::invalid_argument("simulator: the deployment needs at least one node");
  require_positive(topo.cnic_bw, "cnic_bw");
  require_positive(topo.snic_bw, "snic_bw");
  require_positive(topo.pcie_bw, "pcie_bw");
  require_positive(topo.dram_bw, "dram_bw");
  require_non_negative(topo.nic_latency, "nic_latency");
  require_non_negative(topo.storage.latency, "storage.latency");
  require_non_negative(topo.storage.server_nic_bw, "storage.server_nic_bw");
  require_non_negative(topo.storage.ssd_read_bw, "storage.ssd_read_bw");
  require_non_negative(topo.storage.ssd_write_bw, "storage.ssd_write_bw");
  if (topo.storage.servers < 0) throw std::invalid_argument("simulator: topology.storage.servers must be >= 0");
}

int Fabric::add_link(LinkInfo info) {
  links_.push_back(std::move(info));
  return static_cast<int>(links_.size()) - 1;
}

Fabric::Fabric(const Topology& topo, const Deployment& dep) {
  validate(topo, dep);

  nodes_ = dep.prefill_nodes + dep.decode_nodes;
  gpus_per_node_ = topo.gpus_per_node;
  servers_ = topo.storage.servers == 0 ? nodes_ : topo.storage.servers;
  const int g_total = gpus();
  const double lat = topo.nic_latency;

  // Links, in a fixed order so link indices (and links.csv) are stable.
  // A node's SNIC read link carries what its storage client delivers (snic_bw x storage.client_read_efficiency,
  // docs/cost-model.md "Storage reads"); writes leave at the line rate.
  std::vector<int> dram(static_cast<size_t>(nodes_)), snic_down(dram.size()), snic_up(dram.size());
  for (int n = 0; n < nodes_; ++n) {
    const std::string s = std::to_string(n);
    dram[static_cast<size_t>(n)] = add_link({"dram" + s, LinkClass::Dram, topo.dram_bw, 0, n, -1, -1});
    snic_down[static_cast<size_t>(n)] =
        add_link({"snic" + s + "_down", LinkClass::SnicDown, topo.snic_read_bw(), lat, n, -1, -1});
    snic_up[static_cast<size_t>(n)] = add_link({"snic" + s + "_up", LinkClass::SnicUp, topo.snic_bw, lat, n, -1, -1});
  }
  struct GpuLinks {
    int rd, wr, h2d, d2h;
  };
  std::vector<GpuLinks> gl(static_cast<size_t>(g_total));
  for (int g = 0; g < g_total; ++g) {
    const std::string s = std::to_string(g);
    const int n = g / gpus_per_node_;
    auto& l = gl[static_cast<size_t>(g)];
    l.rd = add_link({"cnic" + s + "_rd", LinkClass::CnicRd, topo.cnic_bw, 0, n, g, -1});
    l.wr = add_link({"cnic" + s + "_wr", LinkClass::CnicWr, topo.cnic_bw, lat, n, g, -1});
    l.h2d = add_link({"pcie" + s + "_h2d", LinkClass::Pcie, topo.pcie_bw, 0, n, g, -1});
    l.d2h = add_link({"pcie" + s + "_d2h", LinkClass::Pcie, topo.pcie_bw, 0, n, g, -1});
  }
  // A storage bandwidth of 0 means "not a bottleneck": the link is left out of the routes.
  std::vector<std::vector<int>> stor_up(static_cast<size_t>(servers_)), stor_down(stor_up.size());
  const auto& st = topo.storage;
  for (int k = 0; k < servers_; ++k) {
    const std::string s = "stor" + std::to_string(k);
    auto& up = stor_up[static_cast<size_t>(k)];
    auto& down = stor_down[static_cast<size_t>(k)];
    if (st.ssd_read_bw > 0) up.push_back(add_link({s + "_ssd_read", LinkClass::Storage, st.ssd_read_bw, 0, -1, -1, k}));
    if (st.server_nic_bw > 0) {
      up.push_back(add_link({s + "_nic_up", LinkClass::Storage, st.server_nic_bw, 0, -1, -1, k}));
      down.push_back(add_link({s + "_nic_down", LinkClass::Storage, st.server_nic_bw, 0, -1, -1, k}));
    }
    if (st.ssd_write_bw > 0)
      down.push_back(add_link({s + "_ssd_write", LinkClass::Storage, st.ssd_write_bw, 0, -1, -1, k}));
  }

  // Endpoints, in the id order of hbm()/dram()/sdram()/storage().
  for (int g = 0; g < g_total; ++g) {
    const auto& l = gl[static_cast<size_t>(g)];
    endpoints_.push_back({"hbm" + std::to_string(g), {l.rd}, {l.wr}, 0});
  }
  for (int g = 0; g < g_total; ++g) {
    const auto& l = gl[static_cast<size_t>(g)];
    const int d = dram[static_cast<size_t>(g / gpus_per_node_)];
    endpoints_.push_back({"dram" + std::to_string(g), {d, l.h2d, l.rd}, {l.wr, l.d2h, d}, 0});
  }
  for (int n = 0; n < nodes_; ++n) {
    const auto i = static_cast<size_t>(n);
    if (mutant("sdram_skips_dram"))
      endpoints_.push_back({"sdram" + std::to_string(n), {dram[i], snic_up[i]}, {snic_down[i]}, 0});
    else
      endpoints_.push_back({"sdram" + std::to_string(n), {dram[i], snic_up[i]}, {snic_down[i], dram[i]}, 0});
  }
  for (int k = 0; k < servers_; ++k)
    endpoints_.push_back(
        {"stor" + std::to_string(k), stor_up[static_cast<size_t>(k)], stor_down[static_cast<size_t>(k)], st.latency});
}

Route Fabric::route(int src, int dst) const {
  Route r;
  auto add = [&r, this](const std::vector<int>& ids) {
    for (int id : ids) {
      bool dup = false;
      for (int i = 0; i < r.n; ++i) dup = dup || r.link[static_cast<size_t>(i)] == id;
      if (dup) continue;  // StarZone drops repeated links; so do we, to account bytes the way SimGrid shares them
      if (r.n == Route::kMaxLinks) throw std::logic_error("simulator: route longer than Route::kMaxLinks");
      r.link[static_cast<size_t>(r.n++)] = id;
      r.latency += links_[static_cast<size_t>(id)].latency;
    }
  };
  const Endpoint& a = endpoints_[static_cast<size_t>(src)];
  const Endpoint& b = endpoints_[static_cast<size_t>(dst)];
  add(a.up);
  add(b.down);
  r.latency += a.latency + b.latency;
  return r;
}

}  // namespace dualpath::sim
