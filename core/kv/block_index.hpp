// Content-addressed index of persisted Full Blocks (the paper's 3FS holds them; nothing is evicted).
//
// Every agent's token sequence is laid over *streams* of content. Block b of an agent lives in the stream of the
// deepest ancestor whose shared prefix (traces/FORMAT.md, "parent"/"shared") covers the block whole, else in the
// agent's own stream. So a system prompt that many trajectories share is one run of blocks: persisted by whoever
// computes it first, a hit for every other, written once. Without sharing, agent a's blocks all live in stream a
// and the index is one chain per agent, as in the paper's §6 (hits within one trajectory).
//
// Streams: stream a is agent a's own content. A trajectory's content, as others name it, is the stream of the
// first agent that replays it verbatim, or (when no agent does) stream agents + trajectory index.
//
// With block hashes (Agent::hashed, core/workload/block_hashes.hpp) content is found by key instead: a block whose
// key another trajectory also has lives where the first agent (in id order) that has that key holds it, at that
// agent's block index, whatever their conversations; so reuse beyond any one parent is exact. Runs of blocks that
// continue one stream contiguously are one layer, so the layout stays as short as the reuse pattern.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/workload/agents.hpp"

namespace dualpath {

// Blocks an agent claimed for one storage write (BlockIndex::claim), and whose pending write it is (write_started).
struct AgentWrite {
  int agent = -1;
  BlockRanges blocks;
};

class BlockIndex {
 public:
  // Blocks [previous layer's end, end) of an agent live in `stream`, block k at index k + offset; the last layer
  // of an agent ends at infinity.
  struct Layer {
    int64_t end = 0;
    int stream = 0;
    int64_t offset = 0;
  };
  struct Place {
    int stream = 0;
    int64_t index = 0;
  };

  BlockIndex(const std::vector<Agent>& agents, int block_tokens);

  int block_tokens() const { return block_; }
  int streams() const { return static_cast<int>(state_.size()); }
  // Number of the block-aligned tokens within `tokens`.
  int64_t aligned(int64_t tokens) const { return tokens / block_ * block_; }
  // Where block `block` of `agent` is held.
  Place place_of(int agent, int64_t block) const;
  // Tokens of the persisted prefix of the agent's sequence: whole blocks, contiguous from its start.
  int64_t persisted_prefix(int agent) const;

  // Blocks [first, last) of an agent, as ranges of the streams that hold them (for a backend's storage calls).
  BlockRanges ranges(int agent, int64_t first, int64_t last) const;
  // Claims for writing those of blocks [first, last) that are neither persisted nor claimed by another write, and
  // returns them: a block shared with another agent is written once.
  BlockRanges claim(int agent, int64_t first, int64_t last);
  // A write of claimed blocks reached storage: they are hits from now on.
  void persist(const BlockRanges& blocks);
  // A write of claimed blocks was lost with its node (fault node-down): the blocks it still held claimed are absent
  // again, so whoever computes them next writes them.
  void unclaim(const BlockRanges& blocks);
  // Oracle: KV I/O is bypassed, so the agent's first `tokens` tokens count as persisted at once.
  void mark_persisted(int agent, int64_t tokens);

  // The agent's writes in flight (its next round's read waits for them).
  void write_started(int agent) { ++pending_writes_[agent]; }
  void write_finished(int agent) { --pending_writes_[agent]; }
  bool writes_pending(int agent) const { return pending_writes_[agent] > 0; }

  static int64_t block_count(const BlockRanges& blocks);

 private:
  static constexpr uint8_t kAbsent = 0, kClaimed = 1, kPersisted = 2;
  uint8_t state(int stream, int64_t block) const;
  void set(int stream, int64_t block, uint8_t s);
  template <typename Visit>
  void for_each_run(int agent, int64_t first, int64_t last, Visit visit) const;
  // Lays out a hashed agent; `first_holder` maps content shared between trajectories to its place (constructor only).
  void lay_out_hashed(const Agent& a, std::vector<Layer>& layers, std::unordered_map<uint64_t, Place>& first_holder);

  std::vector<std::vector<Layer>> layout_;  // per agent, ends ascending
  std::vector<std::vector<uint8_t>> state_;  // per stream, per block
  mutable std::vector<int64_t> prefix_;      // per agent: persisted blocks known contiguous (only ever grows)
  std::vector<int> pending_writes_;
  int block_;

};

}  // namespace dualpath
