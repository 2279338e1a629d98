// CNIC QoS: weighted max-min between model and KV traffic on one CNIC direction (the kernel penalty hook).
// Both flows leave GPU 0's HBM, so they share cnic0_rd (50 GB/s) and nothing else.
#include <gtest/gtest.h>

#include <memory>

#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimQos : public EngineTest {};

constexpr double GB = 1e9;

struct Race {
  std::unique_ptr<Simulator> backend;
  double model = -1, kv = -1;
};

// 1 GB of model traffic and 1 GB of KV traffic start together on cnic0_rd.
Race race(const QosSpec& q, double interval = 1.0) {
  SimOptions o;
  o.link_sample_interval = interval;
  Race r;
  r.backend = make(small_topology(), deployment(1, 1), q, SimSpec{}, o);
  Simulator& b = *r.backend;
  b.run([&] {
    b.transfer(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 2}, 1 * GB, TrafficClass::Model, [&] { r.model = b.now(); });
    b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, 0}, {Loc::Dram, 3}, 1 * GB, TrafficClass::Kv,
               [&] { r.kv = b.now(); });
  });
  return r;
}

TEST_P(SimQos, ModelGets99PercentAndKvFinishesWorkConserving) {
  const Race f = race(qos_on(), 0.010);
  // Model at 99% of 50 GB/s: 1 GB / 49.5 GB/s = 20.20 ms. KV moved 1% meanwhile and then gets the whole link,
  // so both gigabytes leave the link by 2 GB / 50 GB/s = 40 ms.
  EXPECT_TRUE(near_rel(f.model, 1 / 49.5, 1e-6)) << f.model;
  EXPECT_TRUE(near_rel(f.kv, 0.040, 1e-6)) << f.kv;
  // During the first 10 ms interval the split is exactly 99:1 on cnic0_rd.
  const LinkReport& r = f.backend->links();
  const int rd = [&] {
    for (size_t i = 0; i < r.links.size(); ++i)
      if (r.links[i].name == "cnic0_rd") return static_cast<int>(i);
    return -1;
  }();
  bool seen = false;
  for (const auto& s : r.samples) {
    if (s.link != rd || s.time != 0) continue;
    seen = true;
    EXPECT_NEAR(s.model_utilisation, 0.99, 1e-9);
    EXPECT_NEAR(s.kv_utilisation, 0.01, 1e-9);
  }
  EXPECT_TRUE(seen);
}

TEST_P(SimQos, DisabledSharesEqually) {
  const Race f = race(qos_off());
  EXPECT_TRUE(near_rel(f.model, 0.040, 1e-6)) << f.model;
  EXPECT_TRUE(near_rel(f.kv, 0.040, 1e-6)) << f.kv;
}

TEST_P(SimQos, WeightsAreConfigurable) {
  QosSpec q;
  q.model_weight = 3;
  q.kv_weight = 1;
  const Race f = race(q);
  EXPECT_TRUE(near_rel(f.model, 1 / 37.5, 1e-6)) << f.model;  // 75% of 50 GB/s
  EXPECT_TRUE(near_rel(f.kv, 0.040, 1e-6)) << f.kv;
}

TEST_P(SimQos, KvTakesWhatACappedModelFlowLeaves) {
  // The model flow is capped at 10 GB/s elsewhere on its route (its destination's PCIe), so KV gets the other
  // 40 GB/s of cnic0_rd: QoS shares a link by weight but never idles it.
  Topology t = small_topology();
  t.pcie_bw = 10e9;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double model = -1, kv = -1;
  b.run([&] {
    b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, 0}, {Loc::Dram, 2}, 1 * GB, TrafficClass::Model,
               [&] { model = b.now(); });
    b.transfer(Hop::Collective, {Loc::Hbm, 0}, {Loc::Hbm, 3}, 1 * GB, TrafficClass::Kv, [&] { kv = b.now(); });
  });
  EXPECT_TRUE(near_rel(kv, 0.025, 1e-6)) << kv;      // 1 GB at 40 GB/s
  EXPECT_TRUE(near_rel(model, 0.100, 1e-6)) << model;  // 1 GB at 10 GB/s throughout
}

TEST_P(SimQos, RejectsNonPositiveWeights) {
  QosSpec q;
  q.kv_weight = 0;
  EXPECT_THROW(make(small_topology(), deployment(1, 1), q, SimSpec{}), std::invalid_argument);
}

DUALPATH_BOTH_ENGINES(SimQos);

}  // namespace
}  // namespace dualpath::sim::test
