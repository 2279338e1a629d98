// Agents for the simulator: who starts when and which rounds it replays (paper §7.4 replay semantics, §7.6).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/config/scenario.hpp"
#include "core/workload/block_hashes.hpp"
#include "core/workload/trace.hpp"

namespace dualpath {

// Content an agent shares with a trajectory of the trace (traces/FORMAT.md, "parent"/"shared"): the agent's first
// `tokens` tokens are that trajectory's first `tokens` tokens, in the agent's scaled token counts.
struct SharedPrefix {
  int trajectory = -1;  // index into Trace::trajectories
  int64_t tokens = 0;
};

struct Agent {
  int id = 0;                 // 0, 1, 2, ... in start order
  double start = 0;           // seconds; the agent issues round 0 at this time
  std::vector<Round> rounds;  // scaled and truncated; round.think already includes WorkloadSpec::think_time
  std::string source;         // trajectory id, or "<id>+prefix" for a clone with a synthetic first round
  // The trajectory the agent replays verbatim (its content is that trajectory's), or -1 for a clone, whose
  // synthetic first round makes all of its content its own.
  int trajectory = -1;
  // Its parent, grandparent, ...: each entry's tokens are the part of the agent's prefix that is also that
  // ancestor's, so they never grow along the list. Empty without a parent (and always for clones).
  std::vector<SharedPrefix> shares;
  // The replayed trajectory's block hashes (traces/FORMAT.md, "hashes"), or null: with them, the block index finds
  // this agent's content in whichever agent's stream first holds the same chain of ids.
  std::shared_ptr<const HashedStream> hashed;
};

// Token range of the synthetic first round prepended to cloned trajectories (uniform, inclusive).
inline constexpr int64_t kClonePrefixMinTokens = 64;
inline constexpr int64_t kClonePrefixMaxTokens = 512;

// Builds the agents of a run (deterministic in spec.seed):
// - Offline: spec.agents agents (0 = one per trajectory) start at t = 0. Agent k < n_traj replays trajectory k;
//   each further agent replays a uniformly sampled trajectory behind a synthetic round of
//   U[kClonePrefixMinTokens, kClonePrefixMaxTokens] random tokens with gen = 1, so its KV is its own (paper §A.3).
// - Online: Poisson arrivals at spec.aps agents/s until spec.duration, each replaying a uniformly sampled
//   trajectory from round 0. With aps = 0 the trace's own arrival times are replayed instead (every trajectory
//   must have one, e.g. a converted Mooncake trace), up to spec.duration when it is > 0.
// A verbatim replay of a trajectory with a parent shares its prefix with the parent's chain (Agent::shares); one of a
// trajectory with block hashes carries them (Agent::hashed; hash positions are trace tokens, so such a trace
// replays at append_scale = gen_scale = 1 only).
// Then every round's append and gen are multiplied by append_scale / gen_scale (rounded, at least 1 token), and
// the agent stops before the first round whose prompt + generation would exceed the length limit: spec.max_len,
// or when it is 0 the profile's MaxLen for generated traces (none for trace files).
// Throws InputError("workload", ...) for inconsistent settings (e.g. a limit shorter than a first round).
std::vector<Agent> make_agents(const Trace& trace, const WorkloadSpec& spec);

// The trajectories a scenario's workload section asks for: generated (source "generate": profile,
// trajectories, seed) or read from a native trace file (source "file", relative paths against scenario_dir).
Trace load_workload_trace(const WorkloadSpec& spec, const std::string& scenario_dir);

}  // namespace dualpath
