// Mutation hooks for scripts/mutation_check.sh (issue 16: every mechanism guarded by a test that fails without it).
// A hook `if (mutant("no_decode_persist")) ...` breaks one mechanism on purpose. Only a build configured with
// DUALPATH_MUTATION=ON (the dev preset, which CI tests with) compiles the hooks in, and a hook fires only when the
// environment variable DUALPATH_MUTANT names it; release and fuzz builds compile every hook to `false`.
// The list of mutants, and what each breaks, is kMutants below; the check runs the suite once per mutant and fails
// when a mutant survives.
#pragma once

namespace dualpath {

struct MutantInfo {
  const char* name;
  const char* breaks;  // the mechanism it removes, in a few words
};

inline constexpr MutantInfo kMutants[] = {
    {"no_decode_persist", "decode-time persistence of generated KV (every full block)"},
    {"no_quota", "the compute quota that chunks prefill batches"},
    {"no_layerwise", "layerwise prefill in DualPath (whole-request loads instead)"},
    {"prefetch_sends_whole", "de-prefetch's delta-only P->D (the PE sends the hit KV too)"},
    {"prefetch_not_awaited", "de-prefetch's gate (decode starts before the DE buffer holds the prefetched hit)"},
    {"no_resident_pull", "pe-pull-from-de's pull (a kept context is dropped and the hit read from storage)"},
    {"gdr_stages_in_dram", "GPUDirect Storage's read into HBM (the read lands in node DRAM)"},
    {"min_tokens_ignored", "policy.layerwise_min_tokens (every request of a layerwise policy streams)"},
    {"no_de_read", "the DE read path (every read goes through the PE's SNIC)"},
    {"no_fetch_period", "the group leaders' fetch cadence (fetch on every event)"},
    {"basic_no_round_robin", "Basic's round-robin placement (everything to the first engine)"},
    {"free_decode_step", "the decode step cost (steps take no time)"},
    {"beta_in_seconds", "the beta seconds -> tokens conversion of Algorithm 1"},
    {"pe_pick_first", "Algorithm 1's PE choice (always the first PE)"},
    {"sdram_skips_dram", "the host DRAM hop of storage reads (route skips a link)"},
    {"no_qos", "the low-priority QoS class of KV traffic"},
    {"read_admission_unbounded", "DRAM buffer admission of storage reads (a read starts without buffer room)"},
    {"de_group_first", "the first level of DE selection (every request to the first DE group)"},
    {"no_read_retry", "the retry of a failed storage read on the other path"},
    {"hit_ignores_persisted", "hit = persisted prefix (reads blocks not yet written)"},
    {"no_shared_prefix", "content shared between trajectories (every agent's blocks its own)"},
    {"hashes_ignored", "content addressing by block hashes (every hashed block the agent's own)"},
    {"shared_blocks_rewritten", "a shared block written once (claims ignore blocks stored or being written)"},
    {"fault_no_reroute", "rerouting reads whose SNIC a fault took down (they wait for it instead)"},
    {"node_down_keeps_claims", "undoing a lost node's writes (their blocks stay claimed, never written)"},
    {"split_reads_whole", "the division of a split read (each half reads the whole hit)"},
    {"split_half_waits_fifo", "a split read's admitted second half starting behind a head that waits for room"},
    {"pool_fifo_eviction", "the DRAM pool's LRU order (a read does not refresh its blocks: eviction is FIFO)"},
    {"steady_ignores_load", "the stop rule's steady state of the load (a flat TTFT alone is steady: transients pass)"},
    {"no_normal_sync", "the prefill EP dispatch's notify per layer (groups spanning nodes pay no fixed sync)"},
};

#ifdef DUALPATH_MUTATION
// True when DUALPATH_MUTANT equals `name` (read once). Throws std::logic_error when DUALPATH_MUTANT names no
// mutant of kMutants, so a typo cannot pass as a surviving mutant.
bool mutant(const char* name);
#else
constexpr bool mutant(const char*) { return false; }
#endif

}  // namespace dualpath
