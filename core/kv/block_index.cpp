#include "core/kv/block_index.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/mutation/mutant.hpp"

namespace dualpath {

BlockIndex::BlockIndex(const std::vector<Agent>& agents, int block_tokens)
    : layout_(agents.size()), prefix_(agents.size(), 0), pending_writes_(agents.size(), 0), block_(block_tokens) {
  if (block_tokens < 1) throw std::invalid_argument("BlockIndex: block_tokens must be >= 1");
  const int n = static_cast<int>(agents.size());
  int trajectories = 0;
  for (const Agent& a : agents) {
    if (a.id != static_cast<int>(&a - agents.data()))
      throw std::invalid_argument("BlockIndex: agent ids must be 0, 1, 2, ... in order");
    trajectories = std::max(trajectories, a.trajectory + 1);
    for (const auto& s : a.shares) trajectories = std::max(trajectories, s.trajectory + 1);
  }
  // A trajectory's content stream: its first verbatim replayer's own stream, else one of its own.
  std::vector<int> content(static_cast<size_t>(std::max(0, trajectories)), -1);
  int streams = n;
  for (const Agent& a : agents)
    if (a.trajectory >= 0 && a.trajectory < trajectories && content[static_cast<size_t>(a.trajectory)] < 0)
      content[static_cast<size_t>(a.trajectory)] = a.id;
  std::unordered_map<uint64_t, Place> first_holder;
  for (const Agent& a : agents) {
    auto& layers = layout_[static_cast<size_t>(a.id)];
    if (a.hashed) {
      lay_out_hashed(a, layers, first_holder);
      continue;
    }
    // shares run nearest ancestor first with non-increasing tokens; layers run deepest (shortest) first.
    for (auto s = a.shares.rbegin(); s != a.shares.rend() && !mutant("no_shared_prefix"); ++s) {
      if (s->trajectory < 0)
        throw std::invalid_argument("BlockIndex: agent " + std::to_string(a.id) + " shares an unknown trajectory");
      const int64_t end = s->tokens / block_;
      if (end <= 0 || (!layers.empty() && end <= layers.back().end)) continue;  // covers no whole block of its own
      int& c = content[static_cast<size_t>(s->trajectory)];
      if (c < 0) c = streams++;
      layers.push_back(Layer{end, c, 0});
    }
    layers.push_back(Layer{std::numeric_limits<int64_t>::max(), a.id, 0});
  }
  state_.resize(static_cast<size_t>(streams));
}

// Block k of a hashed agent: content no other trajectory has is the agent's own (stream a, index k); shared content
// lives at its first holder's place, which the first agent to have the key becomes.
void BlockIndex::lay_out_hashed(const Agent& a, std::vector<Layer>& layers,
                                std::unordered_map<uint64_t, Place>& first_holder) {
  const HashedStream& h = *a.hashed;
  int64_t total = 0;
  for (const Round& r : a.rounds) total += r.append + r.gen;
  const int64_t n = std::min(h.tokens, total) / block_;
  auto place = [&](int64_t k) {
    const int64_t end = (k + 1) * block_;
    const auto j = static_cast<size_t>((end - 1) / h.block_tokens);
    if (!h.shared[j] || mutant("hashes_ignored")) return Place{a.id, k};
    return first_holder.try_emplace(sim_block_key(h.chain, h.block_tokens, block_, k), Place{a.id, k}).first->second;
  };
  for (int64_t k = 0; k < n; ++k) {
    const Place p = place(k);
    Layer& last = layers.empty() ? layers.emplace_back(Layer{0, p.stream, p.index - k}) : layers.back();
    if (last.stream != p.stream || last.offset != p.index - k) {
      last.end = k;
      layers.push_back(Layer{0, p.stream, p.index - k});
    }
  }
  // The rest of the agent's blocks are its own; a last run of its own blocks is the same layer.
  if (!layers.empty() && !(layers.back().stream == a.id && layers.back().offset == 0)) layers.back().end = n;
  else if (!layers.empty()) layers.pop_back();
  layers.push_back(Layer{std::numeric_limits<int64_t>::max(), a.id, 0});
}

BlockIndex::Place BlockIndex::place_of(int agent, int64_t block) const {
  const auto& layers = layout_[static_cast<size_t>(agent)];
  const auto l = std::upper_bound(layers.begin(), layers.end(), block,
                                  [](int64_t b, const Layer& x) { return b < x.end; });
  return Place{l->stream, block + l->offset};  // the last layer ends at infinity
}

uint8_t BlockIndex::state(int stream, int64_t block) const {
  const auto& s = state_[static_cast<size_t>(stream)];
  return block < static_cast<int64_t>(s.size()) ? s[static_cast<size_t>(block)] : kAbsent;
}

void BlockIndex::set(int stream, int64_t block, uint8_t v) {
  auto& s = state_[static_cast<size_t>(stream)];
  if (static_cast<int64_t>(s.size()) <= block) s.resize(static_cast<size_t>(block) + 1, kAbsent);
  s[static_cast<size_t>(block)] = std::max(s[static_cast<size_t>(block)], v);  // a persisted block stays persisted
}

int64_t BlockIndex::persisted_prefix(int agent) const {
  int64_t& n = prefix_[static_cast<size_t>(agent)];
  for (Place p = place_of(agent, n); state(p.stream, p.index) == kPersisted; p = place_of(agent, ++n)) {
  }  // blocks can complete out of order; count contiguous ones
  return n * block_;
}

// Calls visit(stream, first, last) for the runs of [first, last) that lie in one stream each, in order.
template <typename Visit>
void BlockIndex::for_each_run(int agent, int64_t first, int64_t last, Visit visit) const {
  int64_t begin = 0;
  for (const Layer& l : layout_[static_cast<size_t>(agent)]) {
    const int64_t a = std::max(first, begin), b = std::min(last, l.end);
    if (a < b) visit(l.stream, a + l.offset, b + l.offset);
    begin = l.end;
    if (begin >= last) break;
  }
}

BlockRanges BlockIndex::ranges(int agent, int64_t first, int64_t last) const {
  BlockRanges out;
  for_each_run(agent, first, last, [&](int stream, int64_t a, int64_t b) { out.push_back(BlockRange{stream, a, b}); });
  return out;
}

BlockRanges BlockIndex::claim(int agent, int64_t first, int64_t last) {
  BlockRanges out;
  for_each_run(agent, first, last, [&](int stream, int64_t a, int64_t b) {
    for (int64_t k = a; k < b; ++k) {
      if (state(stream, k) != kAbsent && !mutant("shared_blocks_rewritten")) continue;
      set(stream, k, kClaimed);
      if (!out.empty() && out.back().stream == stream && out.back().last == k) ++out.back().last;
      else out.push_back(BlockRange{stream, k, k + 1});
    }
  });
  return out;
}

void BlockIndex::persist(const BlockRanges& blocks) {
  for (const auto& r : blocks)
    for (int64_t k = r.first; k < r.last; ++k) set(r.stream, k, kPersisted);
}

void BlockIndex::unclaim(const BlockRanges& blocks) {
  if (mutant("node_down_keeps_claims")) return;
  for (const auto& r : blocks)
    for (int64_t k = r.first; k < r.last; ++k)
      if (state(r.stream, k) == kClaimed) state_[static_cast<size_t>(r.stream)][static_cast<size_t>(k)] = kAbsent;
}

void BlockIndex::mark_persisted(int agent, int64_t tokens) {
  for_each_run(agent, 0, tokens / block_, [&](int stream, int64_t a, int64_t b) {
    for (int64_t k = a; k < b; ++k) set(stream, k, kPersisted);
  });
}

int64_t BlockIndex::block_count(const BlockRanges& blocks) {
  int64_t n = 0;
  for (const auto& r : blocks) n += r.last - r.first;
  return n;
}

}  // namespace dualpath
