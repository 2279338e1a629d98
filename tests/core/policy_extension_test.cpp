// docs/architecture.md "How to add a policy", tried once: a policy written in one file (here, this test; in the
// tree, a file under core/sched/policies/ plus its line in builtin_policies.cpp) is valid by name for the Cluster,
// and the engine asks it, not a feature flag, both where to read and where a failed read is read again.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/sched/policies/placed_policy.hpp"
#include "core/sched/policy_registry.hpp"
#include "fake_backend.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::agent;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {

// Every hit through the decode node's SNIC, and a failed read again through the same node (this policy trusts
// only the DE path, so Policy::other_read_side has nothing to offer).
class DeOnlyPolicy final : public PlacedPolicy {
 public:
  using PlacedPolicy::PlacedPolicy;
  ReadSide choose_read_side(const ClusterView&, const Request&) override { return ReadSide::De; }
  ReadSide other_read_side(ReadSide) const override { return ReadSide::Unset; }
};

const bool registered = register_policy(
    "test-de-only", PolicyFeatures{.layerwise = true, .dual_path = true, .scheduler = true},
    [](const PolicyFeatures& f) { return std::make_unique<DeOnlyPolicy>(f); });

std::vector<Agent> agents(int n) {
  std::vector<Agent> out;
  for (int i = 0; i < n; ++i) out.push_back(agent(i, {{3000 + 200 * i, 20, 0}, {150, 10, 0}, {150, 10, 0}}));
  return out;
}

}  // namespace

TEST(PolicyExtension, AddedPolicyRunsByNameAndChoosesTheReadSide) {
  ASSERT_TRUE(registered);
  Scenario s = test::small_scenario(1, 1, 1);
  s.policy.name = "test-de-only";
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  Cluster c(s, agents(3), be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  int64_t hit = 0;
  for (const auto& r : c.requests()) {
    EXPECT_EQ(r.read.side(), ReadSide::De) << "request " << r.id;
    hit += r.hit;
  }
  ASSERT_GT(hit, 0);  // later rounds hit the persisted context
  EXPECT_NEAR(c.totals().storage_read_de, hit * s.model.kv_bytes_per_token(), 1);
  EXPECT_EQ(c.totals().storage_read_pe, 0);
}

// The DE node's first read fails: the engine reads it again where the policy says (the same node), whereas a
// policy with both read paths would move it to the PE node (Cluster.FailedReadIsRetriedOnTheOtherPath).
TEST(PolicyExtension, FailedReadIsReadAgainWhereThePolicySays) {
  Scenario s = test::small_scenario(1, 1, 1);
  s.policy.name = "test-de-only";
  FakeBackend be(FakeRates{50e9, 50e9, 1});
  bool failed = false;
  be.fail_read = [&failed](int node, int) {
    if (node != 1 || failed) return std::string();
    failed = true;
    return std::string("SNIC hiccup");
  };
  Cluster c(s, agents(3), be);
  c.start();
  be.run();
  ASSERT_TRUE(c.finished()) << c.stall_report();
  ASSERT_EQ(c.read_retries(), 1);
  int retried = 0;
  for (const auto& r : c.requests())
    if (r.read.retries() > 0) {
      ++retried;
      EXPECT_EQ(r.read.side(), ReadSide::De);
    }
  EXPECT_EQ(retried, 1);
  EXPECT_EQ(c.totals().storage_read_pe, 0);
}
