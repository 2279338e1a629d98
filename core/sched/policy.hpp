// A scheduling policy: inter-engine placement (PE and DE), read-path choice, and which mechanisms are on.
// Policies are looked up by name (policy_registry.hpp); adding one is one file under sched/policies/ with a
// register function, listed once in sched/policies/builtin_policies.cpp.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config/scenario.hpp"
#include "core/vocab/request.hpp"
#include "core/sched/cluster_view.hpp"
#include "core/sched/engine_placement.hpp"

namespace dualpath {

// Mechanisms the engines apply; the ablation toggles of PolicySpec override the policy's defaults.
// Every mechanism is off unless named: PolicyFeatures{.layerwise = true, .dual_path = true} (designated
// initialisers, so a policy's registration says which mechanisms it composes).
struct PolicyFeatures {
  bool layerwise = false;  // layerwise prefill: one layer of the batch's KV in HBM, loads overlap compute
  bool dual_path = false;  // hit KV may be read by the DE node and forwarded over the compute network
  bool scheduler = false;  // Algorithm 1 + two-level DE selection (false: round-robin placement)
  bool bypass_io = false;  // oracle: storage reads, H2D/D2H and PE->DE KV transfers take no time
  bool dram_pool = false;  // persisted blocks are cached in a distributed DRAM pool (policy.pool, dram-pool)
  // the DE node of a PE-path read also reads the hit into its buffer, and the PE sends only the new tokens' KV
  // (de-prefetch: SGLang's decode-side storage load, docs/baselines.md)
  bool de_prefetch = false;
  // a round's context stays pinned in its decode engine's HBM (policy.de_retention), the agent's next round decodes
  // there and its prefill pulls the hit from that HBM GPU to GPU, reading nothing from storage (pe-pull-from-de:
  // vLLM's bidirectional KV transfer, docs/baselines.md)
  bool de_resident = false;
};

// A policy: where requests go (an EnginePlacement) and which side reads a request's hit KV, under the mechanisms
// its features switch on. The built-in ones compose the paper's parts (sched/policies/paper_policies.cpp).
class Policy {
 public:
  virtual ~Policy() = default;
  virtual PolicyFeatures features() const = 0;
  virtual EnginePlacement& placement() = 0;
  // Read path of a request whose PE and DE are known.
  virtual ReadSide choose_read_side(const ClusterView& view, const Request& r) = 0;
  // With choose_read_side = Split: the hit tokens to read through the PE node (the rest go through the DE node).
  virtual int64_t split_pe_tokens(const ClusterView&, const Request&) {
    throw std::logic_error("policy: chose a split read but does not say how to split it");
  }
  // A read that cannot go on through the node of side `failed` (ReadSide::Pe or De: its read failed, or a fault took
  // that node's SNIC down) is read again whole: the side to read it through now. With the DE read path the other
  // node (DualPath's second path is its resilience); ReadSide::Unset: the policy reads only through the PE node
  // (the Cluster retries there, or places the request on another PE whose SNIC is up).
  virtual ReadSide other_read_side(ReadSide failed) const {
    if (!features().dual_path) return ReadSide::Unset;
    return failed == ReadSide::Pe ? ReadSide::De : ReadSide::Pe;
  }
};

using PolicyFactory = std::function<std::unique_ptr<Policy>(const PolicyFeatures&)>;

}  // namespace dualpath
