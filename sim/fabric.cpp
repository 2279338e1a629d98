#include "sim/fabric.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
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

void Fabric::validate(const Hardware& hw, const Deployment& dep) {
  validate_role(hw.prefill, dep);
  validate_role(hw.decode, dep);
  if (hw.decode.gpus_per_node != hw.prefill.gpus_per_node)
    throw std::invalid_argument("simulator: the prefill and decode nodes need the same gpus_per_node");
  if (!(hw.decode.storage == hw.prefill.storage))
    throw std::invalid_argument("simulator: the prefill and decode topologies need one storage section");
}

void Fabric::validate_role(const Topology& topo, const Deployment& dep) {
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

Fabric::Fabric(const Hardware& hw, const Deployment& dep) {
  const Topology& topo = hw.prefill;  // the storage cluster's and the GPU geometry (one for both roles)
  gdr_ = topo.storage.gdr;
  validate(hw, dep);

  nodes_ = dep.prefill_nodes + dep.decode_nodes;
  gpus_per_node_ = topo.gpus_per_node;
  servers_ = topo.storage.servers == 0 ? nodes_ : topo.storage.servers;
  const int g_total = gpus();

  // Links, in a fixed order so link indices (and links.csv) are stable: per node, then per GPU, then per storage
  // server, each owner's links in the table's row order. A bandwidth of 0 (storage: "not a bottleneck") leaves the
  // link out of the fabric and of every route.
  rows_ = fabric_links();
  row_links_.assign(rows_.size(), {});
  for (const auto scope : {LinkKind::PerNode, LinkKind::PerGpu, LinkKind::PerServer}) {
    const int owners = scope == LinkKind::PerNode ? nodes_ : scope == LinkKind::PerGpu ? g_total : servers_;
    for (size_t r = 0; r < rows_.size(); ++r)
      if (link_kind(rows_[r].cls).scope == scope) row_links_[r].assign(static_cast<size_t>(owners), -1);
    for (int o = 0; o < owners; ++o)
      for (size_t r = 0; r < rows_.size(); ++r) {
        const FabricLink& row = rows_[r];
        if (link_kind(row.cls).scope != scope) continue;
        // A node's and its GPUs' links take the node's role's hardware; a storage server's, the storage cluster's.
        const int owner_node = scope == LinkKind::PerNode ? o : scope == LinkKind::PerGpu ? o / gpus_per_node_ : -1;
        const Topology& owner = owner_node >= 0 ? hw.node(owner_node, dep) : topo;
        const double bw = row.bandwidth(owner);
        if (bw == 0) continue;
        const std::string name = row.prefix + std::to_string(o) + std::string(row.suffix);
        if (!(bw > 0) || !std::isfinite(bw))
          throw std::invalid_argument("simulator: link " + name + " needs a bandwidth > 0 (or 0 to leave it out)");
        row_links_[r][static_cast<size_t>(o)] =
            add_link({name, row.cls, bw, row.latency(owner), owner_node, scope == LinkKind::PerGpu ? o : -1,
                      scope == LinkKind::PerServer ? o : -1});
      }
  }

  // Endpoints, in the id order of hbm()/dram()/sdram()/storage().
  auto endpoint = [this](std::string name, Memory m, int node, int gpu, int server, double latency) {
    Endpoint e;
    e.name = std::move(name);
    e.latency = latency;
    e.memory = m;
    e.node = node, e.gpu = gpu, e.server = server;
    endpoints_.push_back(std::move(e));
  };
  for (int g = 0; g < g_total; ++g) endpoint("hbm" + std::to_string(g), Memory::Hbm, g / gpus_per_node_, g, -1, 0);
  for (int g = 0; g < g_total; ++g) endpoint("dram" + std::to_string(g), Memory::Dram, g / gpus_per_node_, g, -1, 0);
  for (int n = 0; n < nodes_; ++n) endpoint("sdram" + std::to_string(n), Memory::NodeDram, n, -1, -1, 0);
  for (int k = 0; k < servers_; ++k)
    endpoint("stor" + std::to_string(k), Memory::Storage, -1, -1, k, topo.storage.latency);

  build_routes();
}

namespace {

constexpr size_t kMemories = 4;
constexpr Reach kReaches[] = {Reach::SameGpu, Reach::SameNode, Reach::OtherNode};

const char* memory_name(Memory m) {
  switch (m) {
    case Memory::Hbm: return "HBM";
    case Memory::Dram: return "DRAM (through a GPU's CNIC)";
    case Memory::NodeDram: return "DRAM (through the node's SNIC)";
    case Memory::Storage: return "storage";
  }
  return "?";
}

// Whether an endpoint of memory `m` owns links of `scope`.
bool owns(Memory m, LinkKind::Scope scope) {
  switch (scope) {
    case LinkKind::PerNode: return m != Memory::Storage;
    case LinkKind::PerGpu: return m == Memory::Hbm || m == Memory::Dram;
    case LinkKind::PerServer: return m == Memory::Storage;
  }
  return false;
}

}  // namespace

std::vector<Fabric::Segment> Fabric::resolve(const std::vector<RouteSegment>& segments, Memory src, Memory dst,
                                             const std::string& what) const {
  std::vector<Segment> out;
  for (const RouteSegment& s : segments) {
    // The kind's row with that suffix; with none given, the kind's only row.
    int row = -1, rows = 0;
    for (size_t r = 0; r < rows_.size(); ++r)
      if (rows_[r].cls == s.cls && (s.suffix.empty() || rows_[r].suffix == s.suffix)) row = static_cast<int>(r), ++rows;
    const std::string kind = std::string(link_kind(s.cls).name) + std::string(s.suffix);
    if (rows == 0)
      throw std::invalid_argument("simulator: the route of a " + what + " names links of kind " + kind +
                                  ", which the fabric has none of (register_fabric_link)");
    if (rows > 1)
      throw std::invalid_argument("simulator: the route of a " + what + " names links of kind " + kind +
                                  ", of which an owner has several: name one by its suffix");
    const Memory m = s.end == End::Src ? src : dst;
    if (!owns(m, link_kind(s.cls).scope))
      throw std::invalid_argument("simulator: the route of a " + what + " takes a " + kind + " link of its " +
                                  (s.end == End::Src ? "source" : "destination") + ", " + memory_name(m) +
                                  ", which has none");
    out.push_back({row, s.end});
  }
  return out;
}

int Fabric::link_of(Segment s, const Endpoint& at) const {
  const LinkKind::Scope scope = link_kind(rows_[static_cast<size_t>(s.row)].cls).scope;
  const int owner = scope == LinkKind::PerNode ? at.node : scope == LinkKind::PerGpu ? at.gpu : at.server;
  return row_links_[static_cast<size_t>(s.row)][static_cast<size_t>(owner)];
}

// The star comes from the built-in rules that hold at any reach: what each kind of memory sends through (their
// source segments) and receives through (their destination segments). Then every use at every reach it can have
// takes the first rule that matches; where that is not the star's route it is kept as an OffStar route. Two uses
// that join the same memories at the same reach must agree: both engines route by the two endpoints alone.
void Fabric::build_routes() {
  std::array<std::optional<std::vector<RouteSegment>>, kMemories> up, down;
  auto set_side = [](std::optional<std::vector<RouteSegment>>& side, std::vector<RouteSegment> segments,
                     Memory m, const char* how) {
    if (!side) side = std::move(segments);
    else if (*side != segments)
      throw std::logic_error(std::string("simulator: the built-in route rules ") + how + " " + memory_name(m) +
                             " through different links (not a star)");
  };
  for (const RouteRule& rule : builtin_route_rules()) {
    if (rule.reach != Reach::Any) continue;
    const auto first_dst = std::find_if(rule.segments.begin(), rule.segments.end(),
                                        [](const RouteSegment& s) { return s.end == End::Dst; });
    if (std::any_of(first_dst, rule.segments.end(), [](const RouteSegment& s) { return s.end == End::Src; }))
      throw std::logic_error("simulator: a built-in route rule takes a source link after a destination link");
    const UseEnds e = use_ends(rule.use);
    set_side(up[static_cast<size_t>(e.src)], {rule.segments.begin(), first_dst}, e.src, "send from");
    set_side(down[static_cast<size_t>(e.dst)], {first_dst, rule.segments.end()}, e.dst, "receive into");
  }
  for (Endpoint& ep : endpoints_) {
    const auto m = static_cast<size_t>(ep.memory);
    const std::string what = std::string("transfer from or into ") + memory_name(ep.memory);
    if (up[m])
      for (const Segment s : resolve(*up[m], ep.memory, ep.memory, what))
        if (const int id = link_of(s, ep); id >= 0) ep.up.push_back(id);
    if (down[m])
      for (const Segment s : resolve(*down[m], ep.memory, ep.memory, what))
        if (const int id = link_of(s, ep); id >= 0) ep.down.push_back(id);
  }

  const std::vector<RouteRule> rules = route_rules();
  struct Taken {
    Memory src, dst;
    Reach reach;
    RouteUse use;
    const std::vector<RouteSegment>* segments;
  };
  std::vector<Taken> taken;
  for (const RouteUse use : route_uses()) {
    if (use == kStorageReadHbm && !gdr_) continue;  // no read lands in HBM: no route for one
    const UseEnds e = use_ends(use);
    for (const Reach reach : kReaches) {
      if (!e.has(reach)) continue;
      const auto rule = std::find_if(rules.begin(), rules.end(), [&](const RouteRule& r) {
        return r.use == use && (r.reach == Reach::Any || r.reach == reach);
      });
      if (rule == rules.end()) throw std::logic_error("simulator: no route rule for a " + use_name(use));
      const auto same = std::find_if(taken.begin(), taken.end(), [&](const Taken& t) {
        return t.src == e.src && t.dst == e.dst && t.reach == reach;
      });
      if (same != taken.end()) {
        if (*same->segments != rule->segments)
          throw std::invalid_argument("simulator: route rules give a " + use_name(use) + " and a " +
                                      use_name(same->use) + " between the same two memories different links; "
                                      "both network engines route by the two memories alone");
        continue;
      }
      taken.push_back({e.src, e.dst, reach, use, &rule->segments});
      std::vector<RouteSegment> star;
      if (up[static_cast<size_t>(e.src)]) star = *up[static_cast<size_t>(e.src)];
      if (down[static_cast<size_t>(e.dst)])
        star.insert(star.end(), down[static_cast<size_t>(e.dst)]->begin(), down[static_cast<size_t>(e.dst)]->end());
      std::vector<Segment> resolved = resolve(rule->segments, e.src, e.dst, use_name(use));
      if (rule->segments != star) off_star_.push_back({e.src, e.dst, reach, std::move(resolved)});
    }
  }
}

Reach Fabric::reach(int src, int dst) const {
  const Endpoint& a = endpoints_[static_cast<size_t>(src)];
  const Endpoint& b = endpoints_[static_cast<size_t>(dst)];
  if (a.node < 0 || a.node != b.node) return Reach::OtherNode;
  return a.gpu >= 0 && a.gpu == b.gpu ? Reach::SameGpu : Reach::SameNode;
}

const Fabric::OffStar* Fabric::off_star(const Endpoint& a, const Endpoint& b) const {
  const int ia = static_cast<int>(&a - endpoints_.data()), ib = static_cast<int>(&b - endpoints_.data());
  const Reach r = reach(ia, ib);
  for (const OffStar& o : off_star_)
    if (o.src == a.memory && o.dst == b.memory && o.reach == r) return &o;
  return nullptr;
}

std::vector<std::pair<int, int>> Fabric::off_star_pairs() const {
  std::vector<std::pair<int, int>> out;
  if (off_star_.empty()) return out;
  const int n = static_cast<int>(endpoints_.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && off_star(endpoints_[static_cast<size_t>(a)], endpoints_[static_cast<size_t>(b)]))
        out.emplace_back(a, b);
  return out;
}

Route Fabric::route(int src, int dst) const {
  Route r;
  auto add = [&r, this](int id) {
    // StarZone drops repeated links; so do we, to account bytes the way SimGrid shares them.
    for (int i = 0; i < r.n; ++i)
      if (r.link[static_cast<size_t>(i)] == id) return;
    if (r.n == Route::kMaxLinks) throw std::logic_error("simulator: route longer than Route::kMaxLinks");
    r.link[static_cast<size_t>(r.n++)] = id;
    r.latency += links_[static_cast<size_t>(id)].latency;
  };
  const Endpoint& a = endpoints_[static_cast<size_t>(src)];
  const Endpoint& b = endpoints_[static_cast<size_t>(dst)];
  if (const OffStar* o = off_star_.empty() ? nullptr : off_star(a, b)) {
    for (const Segment s : o->segments)
      if (const int id = link_of(s, s.end == End::Src ? a : b); id >= 0) add(id);
  } else {
    for (int id : a.up) add(id);
    for (int id : b.down) add(id);
  }
  r.latency += a.latency + b.latency;
  return r;
}

}  // namespace dualpath::sim
