// The policies built into dualpath, registered on first use of the registry. A new policy file under
// sched/policies/ defines a register function; its one line goes here. (Explicit calls, not static
// initialisers: the linker drops unreferenced objects of a static library, and their registrations with them.)
#include "core/sched/policies/builtin_policies.hpp"

namespace dualpath {

void register_paper_policies();  // paper_policies.cpp: dualpath, basic, oracle

void register_split_read_policy();  // split_read_policy.cpp: dualpath-split

void register_dram_pool_policy();  // dram_pool_policy.cpp: dram-pool

void register_de_prefetch_policy();  // de_prefetch_policy.cpp: de-prefetch (a shipped baseline, docs/baselines.md)

void register_pe_pull_policy();  // pe_pull_policy.cpp: pe-pull-from-de (a shipped baseline, docs/baselines.md)

void register_builtin_policies() {
  register_paper_policies();
  register_split_read_policy();
  register_dram_pool_policy();
  register_de_prefetch_policy();
  register_pe_pull_policy();
}

}  // namespace dualpath
