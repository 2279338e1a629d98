// Agent trajectories: the workload the simulator and the hardware backend replay.
// Native on-disk format (JSON Lines) is described in traces/FORMAT.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/workload/block_hashes.hpp"

namespace dualpath {

// One turn of an agent: the tokens appended to the context (tool output / user input),
// then the tokens the model generates. Context of round i+1 = all earlier appends and generations.
struct Round {
  int64_t append = 0;
  int64_t gen = 0;
  double think = 0;  // pause after this round's last token before the next round is issued (seconds)
};

struct Trajectory {
  std::string id;
  double arrival = -1;        // seconds; < 0 = not set (the arrival mode decides)
  std::vector<Round> rounds;
  // Content shared with another trajectory (traces/FORMAT.md): the first `shared` tokens of this trajectory's
  // token stream (appends and generations in order) are the first `shared` tokens of `parent`'s stream, e.g. a
  // system prompt or tool definitions. Empty parent = nothing shared. The readers resolve `parent_index`.
  std::string parent;
  int64_t shared = 0;
  int parent_index = -1;      // index of `parent` in Trace::trajectories; -1 = none
  // Content by block hashes (traces/FORMAT.md, "hashes"): the ids of the stream's first hashes->tokens tokens.
  // A block is then the same content as any block of any trajectory with the same chain of ids
  // (core/workload/block_hashes.hpp). Null = no hashes (content is the trajectory's own, or its parent's prefix).
  std::shared_ptr<const BlockHashes> hashes;

  int64_t total_tokens() const;               // sum of all appends and generations
  int64_t context_before(size_t round) const; // tokens of context when round `round` is issued
};

struct Trace {
  std::vector<Trajectory> trajectories;
};

}  // namespace dualpath
