#include "core/kv/dram_pool.hpp"

#include <algorithm>
#include <climits>
#include <iterator>
#include <stdexcept>

#include "core/mutation/mutant.hpp"

namespace dualpath {

DramPool::DramPool(int nodes, int64_t capacity_blocks, double block_bytes, PoolEviction eviction)
    : nodes_(nodes), capacity_(capacity_blocks), block_bytes_(block_bytes), eviction_(eviction),
      node_(static_cast<size_t>(std::max(nodes, 0))) {
  if (nodes <= 0) throw std::invalid_argument("dram pool: needs at least one node");
  if (capacity_blocks < 0) throw std::invalid_argument("dram pool: capacity must be >= 0 blocks");
}

void DramPool::change(Node& n, int64_t blocks, double now) {
  if (now > last_) used_seconds_ += static_cast<double>(used_) * (now - last_), last_ = now;
  n.used += blocks, used_ += blocks;
}

void DramPool::touch(Node& n, Held& h, int stream) {
  // Most recently used goes to the back. (A mutant keeps the order of arrival: eviction is then FIFO.)
  if (mutant("pool_fifo_eviction")) return;
  n.lru.erase(h.lru);
  h.lru = n.lru.insert(n.lru.end(), stream);
}

std::vector<DramPool::Span> DramPool::overlap(const Held& h, int64_t first, int64_t last) {
  std::vector<Span> out;
  auto r = h.ranges.upper_bound(first);
  if (r != h.ranges.begin()) --r;
  for (; r != h.ranges.end() && r->first < last; ++r) {
    const int64_t a = std::max(first, r->first), b = std::min(last, r->second);
    if (a < b) out.push_back({a, b});
  }
  return out;
}

std::vector<DramPool::Span> DramPool::lookup(int stream, int64_t first, int64_t last) {
  const auto it = held_.find(stream);
  if (it == held_.end()) return {};
  touch(node_[static_cast<size_t>(holder(stream))], it->second, stream);
  return overlap(it->second, first, last);
}

std::vector<DramPool::Span> DramPool::gaps(const Held& h, int64_t first, int64_t last) {
  std::vector<Span> out;
  auto r = h.ranges.upper_bound(first);
  if (r != h.ranges.begin() && std::prev(r)->second > first) --r;
  for (int64_t at = first; at < last;) {
    if (r == h.ranges.end() || r->first >= last) {
      out.push_back({at, last});
      break;
    }
    if (r->first > at) out.push_back({at, r->first});
    at = std::max(at, r->second);
    ++r;
  }
  return out;
}

void DramPool::insert(Held& h, int64_t first, int64_t last) {
  // Merge [first, last) with every range it overlaps or touches.
  auto r = h.ranges.upper_bound(first);
  if (r != h.ranges.begin() && std::prev(r)->second >= first) --r;
  while (r != h.ranges.end() && r->first <= last) {
    h.blocks -= r->second - r->first;
    first = std::min(first, r->first), last = std::max(last, r->second);
    r = h.ranges.erase(r);
  }
  h.ranges.emplace(first, last);
  h.blocks += last - first;
}

int64_t DramPool::drop_lowest(Held& h, int64_t blocks) {
  int64_t dropped = 0;
  while (dropped < blocks && !h.ranges.empty()) {
    const auto r = h.ranges.begin();
    const int64_t first = r->first, last = r->second;
    const int64_t take = std::min(blocks - dropped, last - first);
    dropped += take;
    h.ranges.erase(r);
    if (first + take < last) h.ranges.emplace(first + take, last);
  }
  h.blocks -= dropped;
  return dropped;
}

void DramPool::put(int stream, int64_t first, int64_t last, double now) {
  if (last <= first) return;
  Node& n = node_[static_cast<size_t>(holder(stream))];
  auto it = held_.find(stream);
  if (it == held_.end()) it = held_.emplace(stream, Held{{}, 0, n.lru.insert(n.lru.end(), stream)}).first;
  else touch(n, it->second, stream);
  Held& h = it->second;
  // The blocks not held yet; without eviction only what fits, lowest first.
  int64_t room = eviction_ == PoolEviction::None ? std::max<int64_t>(0, capacity_ - n.used) : INT64_MAX;
  for (const Span& g : gaps(h, first, last)) {
    const int64_t use = std::min(g.blocks(), room);
    refused_ += g.blocks() - use;
    if (use <= 0) continue;
    insert(h, g.first, g.first + use);
    room -= use, put_ += use;
    change(n, use, now);
  }
  // Least recently used first: the lowest blocks of the streams at the front of the order; this stream, just moved
  // to the back, loses its own only when nobody else holds any here.
  int64_t need = n.used - capacity_;
  while (need > 0 && !n.lru.empty()) {
    const int victim = n.lru.front();
    Held& v = held_.at(victim);
    const int64_t dropped = drop_lowest(v, need);
    evicted_ += dropped, need -= dropped;
    change(n, -dropped, now);
    if (v.blocks == 0) {
      n.lru.pop_front();
      held_.erase(victim);
    }
  }
  peak_node_ = std::max(peak_node_, n.used);  // (after eviction: a put holds at most the node's capacity)
  if (const auto e = held_.find(stream); e != held_.end() && e->second.blocks == 0) {
    n.lru.erase(e->second.lru);
    held_.erase(e);
  }
}

int64_t DramPool::used_blocks() const { return used_; }

int64_t DramPool::held_blocks(int stream, int64_t first, int64_t last) const {
  const auto it = held_.find(stream);
  if (it == held_.end()) return 0;
  int64_t n = 0;
  for (const Span& s : overlap(it->second, first, last)) n += s.blocks();
  return n;
}

std::vector<DramPool::Span> DramPool::peek(int stream) const {
  std::vector<Span> out;
  if (const auto it = held_.find(stream); it != held_.end())
    for (const auto& [a, b] : it->second.ranges) out.push_back({a, b});
  return out;
}

double DramPool::mean_used_blocks(double end) const {
  if (end <= 0) return 0;
  const double upto = used_seconds_ + static_cast<double>(used_) * std::max(0.0, end - last_);
  return upto / end;
}

}  // namespace dualpath
