#include "core/workload/block_hashes.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace dualpath {

uint64_t mix_key(uint64_t key, uint64_t value) {
  uint64_t z = key ^ (value + 0x9E3779B97F4A7C15ULL + (key << 6) + (key >> 2));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<uint64_t> chain_keys(const BlockHashes& h) {
  std::vector<uint64_t> out(h.ids.size());
  uint64_t key = 0x6B76626C6F636B73ULL;  // "kvblocks": the empty prefix
  for (size_t j = 0; j < h.ids.size(); ++j) {
    key = mix_key(key, static_cast<uint64_t>(h.ids[j]));
    const int64_t end = std::min(h.tokens, static_cast<int64_t>(j + 1) * h.block_tokens);
    const int64_t length = end - static_cast<int64_t>(j) * h.block_tokens;
    // A partial block's id names shorter content: its length is part of what it names.
    out[j] = length == h.block_tokens ? key : mix_key(key, static_cast<uint64_t>(length) | (1ULL << 63));
  }
  return out;
}

uint64_t sim_block_key(const std::vector<uint64_t>& chain, int64_t trace_block, int64_t sim_block, int64_t k) {
  const int64_t end = (k + 1) * sim_block;
  const int64_t j = (end - 1) / trace_block;
  return mix_key(chain[static_cast<size_t>(j)], static_cast<uint64_t>(end - j * trace_block));
}

int64_t hashed_sim_blocks(const BlockHashes& h, int64_t sim_block, int64_t limit) {
  return std::min(h.tokens, limit) / sim_block;
}

std::vector<std::shared_ptr<const HashedStream>> hashed_streams(const std::vector<const BlockHashes*>& trajectories) {
  std::vector<std::shared_ptr<HashedStream>> streams(trajectories.size());
  constexpr int kMany = -2;
  std::unordered_map<uint64_t, int> owner;  // chained key -> the one trajectory that has it, or kMany
  for (size_t t = 0; t < trajectories.size(); ++t) {
    if (!trajectories[t]) continue;
    auto s = std::make_shared<HashedStream>();
    s->block_tokens = trajectories[t]->block_tokens;
    s->tokens = trajectories[t]->tokens;
    s->chain = chain_keys(*trajectories[t]);
    for (const uint64_t key : s->chain) {
      const auto [it, fresh] = owner.emplace(key, static_cast<int>(t));
      if (!fresh && it->second != static_cast<int>(t)) it->second = kMany;
    }
    streams[t] = std::move(s);
  }
  std::vector<std::shared_ptr<const HashedStream>> out(trajectories.size());
  for (size_t t = 0; t < streams.size(); ++t) {
    if (!streams[t]) continue;
    auto& s = *streams[t];
    s.shared.resize(s.chain.size());
    for (size_t j = 0; j < s.chain.size(); ++j) s.shared[j] = owner.at(s.chain[j]) == kMany;
    out[t] = std::move(streams[t]);
  }
  return out;
}

double reusable_share(const std::vector<HashedInput>& requests, int64_t trace_block, int64_t sim_block) {
  std::unordered_set<uint64_t> seen;
  double reusable = 0, input = 0;
  std::vector<uint64_t> keys;
  for (const HashedInput& r : requests) {
    const std::vector<uint64_t> chain = chain_keys(BlockHashes{trace_block, r.input_tokens, *r.ids});
    const int64_t n = r.input_tokens / sim_block;
    keys.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) keys[static_cast<size_t>(k)] = sim_block_key(chain, trace_block, sim_block, k);
    int64_t hit = 0;
    while (hit < n && seen.count(keys[static_cast<size_t>(hit)])) ++hit;
    reusable += static_cast<double>(hit * sim_block);
    input += static_cast<double>(r.input_tokens);
    seen.insert(keys.begin(), keys.end());
  }
  return input > 0 ? reusable / input : 0;
}

}  // namespace dualpath
