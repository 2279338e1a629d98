// `pe-pull-from-de` (issue 67, a shipped baseline): vLLM's bidirectional KV transfer (PR #32553, merged). After a
// turn the decode engine keeps the turn's KV blocks pinned in HBM for decoder_kv_blocks_ttl (480 s); a stateful
// proxy keyed by conversation sends the next turn to that decode engine (llm-d-router #2432), and the prefill pulls
// the prefix from its HBM by RDMA read, GPU to GPU (NIXL), so no storage read and no SNIC is used for it; decode
// then takes only the new KV. A prefix no engine holds (a first round, an expired or dropped one) is read from
// storage through the PE node. The rest is Basic's (round-robin placement, no layerwise prefill). The mechanism:
// core/kv/de_residency.hpp (the pinned contexts), core/cluster/decode_stage.cpp (claim, end_round, expiry),
// core/cluster/placement_stage.cpp (accept), core/cluster/read_stage.cpp (the de-hbm read path),
// core/cluster/kv_io_storage.cpp (the pull); docs/baselines.md gives the sources, the assumptions and the study.
#include "core/sched/policies/placed_policy.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath {

void register_pe_pull_policy() {
  register_policy("pe-pull-from-de", PolicyFeatures{.de_resident = true}, make_pe_reads_policy);
}

}  // namespace dualpath
