// `de-prefetch` (issue 67, a shipped baseline): SGLang's decode-side storage load with delta-only P->D (PR #26227,
// merged). The decode node looks its prefix up in its own tiers, storage included, and prefetches it (storage ->
// host DRAM -> GPU) while the prefill runs; it reports the prefix length it will hold, and the prefill node sends
// only the KV past it. Prefill still needs the prefix for its own compute, and reads it through its own storage
// client, so the hit is read twice, once through each node's SNIC, and the compute network carries only the new
// tokens' KV. The rest is Basic's (PE-side reads, round-robin placement, no layerwise prefill), as for dram-pool;
// the ablation toggles add layerwise prefill or the scheduler. The mechanism: core/cluster/read_stage_prefetch.cpp
// (enqueue_prefetch), core/cluster/prefetch_gate.hpp, core/cluster/prefill_stage.cpp (send_tokens);
// docs/baselines.md gives the sources, the assumptions and the study.
#include "core/sched/policies/placed_policy.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath {

void register_de_prefetch_policy() {
  register_policy("de-prefetch", PolicyFeatures{.de_prefetch = true}, make_pe_reads_policy);
}

}  // namespace dualpath
