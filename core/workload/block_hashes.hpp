// Content addressing from a trace's block hashes (traces/FORMAT.md, "hashes"): which simulator blocks of a
// trajectory hold the same content as which blocks of another, whatever their conversations.
//
// A trace names the content of its token stream in blocks of T tokens (Mooncake 512, Bailian 16); the simulator
// keeps KV in Full Blocks of B tokens (policy.block_tokens). A simulator block's KV depends on every token before
// it, so its identity is the whole prefix it ends: the chain of the trace ids up to the trace block it ends in, and
// how far into that block it ends. Two simulator blocks are the same content exactly when that key is equal, so a
// block is shared only when every trace block it covers, and every one before, is (the rule for a partial block:
// a simulator block that ends inside a trace block shares only with blocks that end at the same offset of a trace
// block with the same chain). Keys are 64-bit hashes; a collision (about n^2 / 2^65 for n blocks) would merge two
// contents.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace dualpath {

// A trajectory's content ids: its first `tokens` tokens (appends and generations in order) in blocks of
// `block_tokens`, the last one partial when `tokens` is not a multiple; ids.size() == ceil(tokens / block_tokens).
struct BlockHashes {
  int64_t block_tokens = 0;
  int64_t tokens = 0;
  std::vector<int64_t> ids;
};

// Mixes one value into a 64-bit key (splitmix64 finaliser over the xor): the one hash every content key uses.
uint64_t mix_key(uint64_t key, uint64_t value);

// The chained key of each trace block: key j names ids[0..j] (and the length of block j when it is partial).
std::vector<uint64_t> chain_keys(const BlockHashes& h);

// The key of the simulator block [k*B, (k+1)*B) given the chained keys of a stream hashed in blocks of T tokens;
// the block must end within the hashed tokens ((k+1)*B <= tokens).
uint64_t sim_block_key(const std::vector<uint64_t>& chain, int64_t trace_block, int64_t sim_block, int64_t k);

// Whole simulator blocks a stream's hashes cover: floor(min(tokens, limit) / B).
int64_t hashed_sim_blocks(const BlockHashes& h, int64_t sim_block, int64_t limit);

// A trajectory's hashes as the block index reads them: the chained keys, and which of them some other trajectory
// of the trace also has. Content no other trajectory has is the replaying agent's own: two agents that replay the
// same trajectory (an online run that samples it twice) share only what the trace shares between trajectories,
// as without hashes (traces/FORMAT.md).
struct HashedStream {
  int64_t block_tokens = 0;
  int64_t tokens = 0;
  std::vector<uint64_t> chain;
  std::vector<bool> shared;
};

// One entry per trajectory (null where it has no hashes).
std::vector<std::shared_ptr<const HashedStream>> hashed_streams(const std::vector<const BlockHashes*>& trajectories);

// One request of a request-level trace, for the share its input could reuse.
struct HashedInput {
  int64_t input_tokens = 0;
  const std::vector<int64_t>* ids = nullptr;  // ceil(input_tokens / trace_block) ids
};

// The trace's own reusable share: over requests in file order, the tokens in the leading run of simulator blocks
// of B tokens (whole blocks within the input) that an earlier request's input already held, over all input tokens.
// With B = T this is the Mooncake definition less the partial last block.
double reusable_share(const std::vector<HashedInput>& requests, int64_t trace_block, int64_t sim_block);

}  // namespace dualpath
