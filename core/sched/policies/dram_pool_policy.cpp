// `dram-pool` (issue 22): the paper's other baseline, SGL(MC): SGLang with HiCache and Mooncake Store, whose
// nodes pool their DRAM as a distributed KV cache in front of the storage (digest §7.5, §A.4). In SGLang+Mooncake
// P/D mode the P side reads and pushes to D, like Basic (digest §8.2), so the policy is Basic's placement and
// mechanisms (PE-side reads, round-robin placement, no layerwise prefill: SGLang keeps a batch's whole KV in HBM)
// plus the pool: the cluster reads a hit's blocks that the pool holds from the holding node's DRAM over the
// compute network and the rest from storage (core/kv/dram_pool.hpp, core/cluster/read_stage.cpp); docs/dram-pool.md.
#include "core/sched/policies/placed_policy.hpp"
#include "core/sched/policy_registry.hpp"

namespace dualpath {

void register_dram_pool_policy() {
  register_policy("dram-pool", PolicyFeatures{.dram_pool = true}, make_pe_reads_policy);
}

}  // namespace dualpath
