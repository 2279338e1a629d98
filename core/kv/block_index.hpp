// Per-trajectory index of persisted Full Blocks. Hits are confined to the same trajectory (paper §6), so the
// storage trie degenerates to one chain per agent; a round's hit length is the block-aligned persisted prefix.
#pragma once

#include <cstdint>
#include <vector>

namespace dualpath {

class BlockIndex {
 public:
  BlockIndex(int agents, int block_tokens)
      : blocks_(agents), prefix_(agents, 0), pending_writes_(agents, 0), block_(block_tokens) {}

  int block_tokens() const { return block_; }
  // Tokens of the persisted prefix: whole blocks, contiguous from the start of the trajectory.
  int64_t persisted_prefix(int agent) const { return prefix_blocks(agent) * block_; }
  // Number of the block-aligned tokens within `tokens`.
  int64_t aligned(int64_t tokens) const { return tokens / block_ * block_; }

  // A write of blocks [first, last) started / finished. Reads of the agent wait while writes are pending.
  void write_started(int agent) { ++pending_writes_[agent]; }
  void write_finished(int agent, int64_t first_block, int64_t last_block) {
    auto& b = blocks_[agent];
    if (static_cast<int64_t>(b.size()) < last_block) b.resize(last_block, false);
    for (int64_t i = first_block; i < last_block; ++i) b[i] = true;
    advance(agent);
    --pending_writes_[agent];
  }
  bool writes_pending(int agent) const { return pending_writes_[agent] > 0; }
  // Oracle: KV I/O is bypassed, so every block counts as persisted at once.
  void mark_persisted(int agent, int64_t tokens) {
    auto& b = blocks_[agent];
    const int64_t n = tokens / block_;
    if (static_cast<int64_t>(b.size()) < n) b.resize(n, false);
    for (int64_t i = 0; i < n; ++i) b[i] = true;
    advance(agent);
  }

 private:
  int64_t prefix_blocks(int agent) const { return prefix_[agent]; }
  void advance(int agent) {  // blocks can complete out of order; the prefix only grows over contiguous ones
    const auto& b = blocks_[agent];
    int64_t& n = prefix_[agent];
    while (n < static_cast<int64_t>(b.size()) && b[n]) ++n;
  }
  std::vector<std::vector<bool>> blocks_;
  std::vector<int64_t> prefix_;
  std::vector<int> pending_writes_;
  int block_;
};

}  // namespace dualpath
