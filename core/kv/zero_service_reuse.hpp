// The KV hit rate of a replay when service takes no time: the simulator's hit rule (block-aligned persisted
// prefix, content shared across trajectories by "parent"), with every round's blocks persisted the moment it is
// issued. `trace stats` prints it for a trace and `run` prints it beside the hit rate the run achieved, so a
// replay that loses reuse (to timing, to the block size, or to a format that cannot express sharing) shows by how
// much. It is a reference, not a strict bound: a delayed round can find content that other agents persisted
// meanwhile, which a zero-time replay issued earlier could not.
#pragma once

#include <cstdint>
#include <vector>

#include "core/workload/agents.hpp"

namespace dualpath {

struct ZeroServiceReuse {
  double prompt_tokens = 0;
  double hit_tokens = 0;         // block-aligned persisted prefix, at most prompt - 1 (one token is always computed)
  double shared_hit_tokens = 0;  // of hit_tokens: blocks of content shared with other trajectories ("parent")
  double hit_rate() const { return prompt_tokens > 0 ? hit_tokens / prompt_tokens : 0; }
};

// Replays the agents' rounds in time order, each issued at the agent's start plus the pauses before it (service
// takes no time; ties go to the lower agent id, then the earlier round). A round's hit is the persisted prefix of
// its prompt under BlockIndex's content rule; then every Full Block of its prompt and generation is persisted.
// With persist_generation false only the prompt's blocks are: the reuse a prompt-only definition (Mooncake's
// reusable share) can see, so the difference between the two is what persisting decode output adds.
ZeroServiceReuse zero_service_reuse(const std::vector<Agent>& agents, int block_tokens, bool persist_generation = true);

}  // namespace dualpath
