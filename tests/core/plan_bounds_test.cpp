// The closed-form bounds of `plan --target-aps` (core/study/plan_bounds.hpp) against hand computations: an agent's
// storage reads are its rounds' block-aligned persisted prefixes times the KV bytes per token, its prefill seconds
// the cost model's compute-bound rate, and a split is ruled out only beyond the margin.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/scenario_bandwidth.hpp"
#include "core/cost/cost_model.hpp"
#include "core/study/plan_bounds.hpp"
#include "tests/core/temp_dir_test.hpp"
#include "tests/core/test_scenario.hpp"

namespace dualpath {
namespace {

analysis::PdSplit split(int p, int d) {
  analysis::PdSplit s;
  s.P = p, s.D = d;
  return s;
}

class PlanBoundsTest : public test::TempDirTest {
 protected:
  // Two trajectories: a 4,096-token first prompt then three 256-token appends (16 generated each), and a single
  // 1,000-token round (no hit at all).
  Scenario scenario() {
    Scenario sc = test::small_scenario(1, 1, 8);
    sc.workload.source = WorkloadSource::File;
    sc.workload.file = write("t.jsonl", "{\"id\":\"a\",\"rounds\":[[4096,16],[256,16],[256,16],[256,16]]}\n"
                                        "{\"id\":\"b\",\"rounds\":[[1000,16]]}\n");
    sc.workload.mode = ArrivalMode::Online, sc.workload.aps = 1, sc.workload.duration = 3600;
    sc.policy.block_tokens = 64;
    return sc;
  }
  study::VariantPlan variant(const Scenario& sc, bool dual_path) {
    study::VariantPlan vp;
    vp.dual_path = dual_path;
    vp.bandwidth = analysis::bandwidth_params(sc, /*with_pcie=*/false);
    return vp;
  }
};

TEST_F(PlanBoundsTest, ReadsAreTheBlockAlignedPrefixes) {
  const Scenario sc = scenario();
  const study::AgentDemand d = study::agent_demand(sc);
  // Trajectory a: contexts before rounds 2-4 are 4,112, 4,384 and 4,656 tokens: 4,096 + 4,352 + 4,608 aligned.
  const double a = (4096.0 + 4352 + 4608) * sc.model.kv_bytes_per_token();
  EXPECT_EQ(d.agents, 2);
  EXPECT_DOUBLE_EQ(d.read_bytes, a / 2);
  EXPECT_NEAR(d.read_cv, 1.0, 1e-12);  // one agent reads a, the other nothing: mean a/2, deviation a/2
}

TEST_F(PlanBoundsTest, PrefillIsTheComputeBoundRate) {
  const Scenario sc = scenario();
  const study::AgentDemand d = study::agent_demand(sc);
  ASSERT_TRUE(d.no_compute_bound.empty()) << d.no_compute_bound;
  const CostModel cost(sc.model, sc.topology.gpu);
  // Each round's fresh tokens at the cost model's full-batch rate (prompt tokens per GPU-second at that shape).
  auto gpu_s = [&](int64_t hit, int64_t fresh) {
    return static_cast<double>(hit + fresh) / cost.prefill_prompt_tokens_per_second(hit, fresh);
  };
  const double a = gpu_s(0, 4096) + gpu_s(4096, 16 + 256) + gpu_s(4352, 32 + 256) + gpu_s(4608, 48 + 256);
  const double b = gpu_s(0, 1000);
  EXPECT_NEAR(d.prefill_gpu_s, (a + b) / 2, 1e-9 * (a + b));
}

TEST_F(PlanBoundsTest, MarginIsToleranceAndThreeDeviationsOfHalfALookback) {
  // 4 APS over 900 s: 3,600 arrivals; cv 1: sqrt(2 / 3600).
  EXPECT_NEAR(study::bound_margin(4, 1), 0.05 + 3 * std::sqrt(2.0 / 3600), 1e-12);
  EXPECT_GT(study::bound_margin(0.1, 1), study::bound_margin(10, 1));  // fewer agents, more noise
}

TEST_F(PlanBoundsTest, RulesOutOnlyBeyondTheMargin) {
  const Scenario sc = scenario();
  const study::AgentDemand d = study::agent_demand(sc);
  const analysis::PdSplit s = split(1, 3);
  const double snic = sc.topology.snic_bw;
  // DualPath reads through all 4 storage NICs, Basic through the 1 prefill NIC.
  for (const bool dual : {true, false}) {
    const study::VariantPlan vp = variant(sc, dual);
    const double nics = dual ? 4 : 1;
    const double edge = nics * snic / d.read_bytes;  // APS at exactly the NICs' rate
    for (const double x : {0.5 * edge, edge, 1.02 * edge, 2 * edge}) {
      const auto bounds = study::split_bounds(vp, sc, d, s, x);
      ASSERT_FALSE(bounds.empty());
      const study::SplitBound& r = bounds.front();
      EXPECT_EQ(r.name, "storage reads");
      EXPECT_DOUBLE_EQ(r.can, nics * snic);
      EXPECT_DOUBLE_EQ(r.need, x * d.read_bytes);
      EXPECT_EQ(r.rules_out(), x > edge * (1 + study::bound_margin(x, d.read_cv))) << x;
    }
    EXPECT_TRUE(study::split_bounds(vp, sc, d, s, 2 * edge).front().rules_out());
    EXPECT_FALSE(study::split_bounds(vp, sc, d, s, edge).front().rules_out());
  }
  // A policy whose hits do not all cross the storage NICs has no read bound.
  study::VariantPlan pool = variant(sc, true);
  pool.reads_from_storage = false;
  for (const auto& b : study::split_bounds(pool, sc, d, s, 1e6)) EXPECT_NE(b.name, "storage reads");
}

TEST_F(PlanBoundsTest, ComputeBoundCountsThePrefillGpus) {
  const Scenario sc = scenario();
  const study::AgentDemand d = study::agent_demand(sc);
  const study::VariantPlan vp = variant(sc, true);
  const double edge = 3 * 8 / d.prefill_gpu_s;  // 3 prefill nodes of 8 GPUs
  const auto bounds = study::split_bounds(vp, sc, d, split(3, 1), 2 * edge);
  ASSERT_EQ(bounds.size(), 2u);
  EXPECT_EQ(bounds[1].name, "prefill compute");
  EXPECT_DOUBLE_EQ(bounds[1].can, 24);
  EXPECT_TRUE(bounds[1].rules_out());
  EXPECT_FALSE(study::split_bounds(vp, sc, d, split(3, 1), edge)[1].rules_out());
}

}  // namespace
}  // namespace dualpath
