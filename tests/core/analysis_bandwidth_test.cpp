// The generalised §4.2 traffic model (core/analysis/bandwidth_model.hpp) against closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/analysis/bandwidth_model.hpp"
#include "core/analysis/scenario_bandwidth.hpp"

using namespace dualpath::analysis;
using dualpath::Scenario;
using dualpath::Topology;

namespace {

// g = 8, s = 1, B = 50 GB/s, M = 500 GB/s: M/(B·s) = 10, the paper's plug-in values.
BandwidthParams paper() { return {8, 1, 50e9, 500e9, 0}; }

double load(const std::vector<LinkLoad>& ls, Link l) {
  for (const auto& x : ls)
    if (x.link == l) return x.fraction;
  ADD_FAILURE() << "no row for " << link_name(l);
  return -1;
}

bool has(const std::vector<Link>& v, Link l) { return std::find(v.begin(), v.end(), l) != v.end(); }

}  // namespace

TEST(AnalysisBandwidth, PaperRangeIsOneSeventhToSevenHalves) {
  const auto r = bottleneck_free_range(paper());
  EXPECT_FALSE(r.empty);
  EXPECT_DOUBLE_EQ(r.lower, 1.0 / 7);
  EXPECT_DOUBLE_EQ(r.upper, 3.5);
  ASSERT_EQ(r.binding_lower.size(), 1u);
  EXPECT_EQ(r.binding_lower[0], Link::PeCnicWrite);
  ASSERT_EQ(r.binding_upper.size(), 2u);
  EXPECT_TRUE(has(r.binding_upper, Link::DeCnicWrite));
  EXPECT_TRUE(has(r.binding_upper, Link::DeDram));
  EXPECT_FALSE(has(r.binding_upper, Link::DeCnicRead));
  for (const auto& c : r.constraints)
    if (c.link == Link::DeCnicRead) {
      EXPECT_DOUBLE_EQ(c.bound, 6);
    }
  EXPECT_TRUE(r.violated_fixed.empty());
  // The paper's configurations all lie inside.
  for (auto [P, D] : {std::pair{1, 1}, {1, 2}, {2, 1}, {2, 4}, {48, 96}, {44, 88}}) EXPECT_TRUE(in_range(r, P, D));
  EXPECT_FALSE(in_range(r, 4, 1));
  EXPECT_FALSE(in_range(r, 8, 1));
  EXPECT_FALSE(in_range(r, 1, 8));
  EXPECT_TRUE(in_range(r, 7, 2));
  EXPECT_TRUE(in_range(r, 1, 7));
}

TEST(AnalysisBandwidth, LoadsAtOnePOneDSaturated) {
  const auto ls = link_loads(paper(), 1, 1);
  EXPECT_DOUBLE_EQ(load(ls, Link::PeSnic), 1);
  EXPECT_DOUBLE_EQ(load(ls, Link::DeSnic), 1);
  EXPECT_DOUBLE_EQ(load(ls, Link::PeCnicRead), 0.25);   // 2s/g
  EXPECT_DOUBLE_EQ(load(ls, Link::PeCnicWrite), 0.25);  // (s/g)(1 + D/P)
  EXPECT_DOUBLE_EQ(load(ls, Link::DeCnicRead), 0.375);  // (s/g)(P/D + 2)
  EXPECT_DOUBLE_EQ(load(ls, Link::DeCnicWrite), 0.375); // (s/g)(2P/D + 1)
  EXPECT_DOUBLE_EQ(load(ls, Link::PeDram), 0.2);        // 2sB/M
  EXPECT_DOUBLE_EQ(load(ls, Link::DeDram), 0.5);        // (3 + 2P/D)sB/M
  // Per-pair traffic: T_p = Bs/(D g^2), T_c = Bs/(P g^2); DE CNIC write = (2T_p + T_c)·P·g.
  const double B = 50e9, g = 8, s = 1;
  const double Tp = B * s / (2 * g * g), Tc = B * s / (1 * g * g);
  const auto ls2 = link_loads(paper(), 1, 2);
  EXPECT_NEAR(load(ls2, Link::DeCnicWrite) * B, (2 * Tp + Tc) * 1 * g, 1e-3);
  EXPECT_NEAR(load(ls2, Link::PeCnicWrite) * B, (Tp + Tc) * 2 * g, 1e-3);
}

TEST(AnalysisBandwidth, BindingLinksReachCapacityAtTheBounds) {
  auto at = link_loads(paper(), 7, 2);  // P/D = 7/2
  EXPECT_DOUBLE_EQ(load(at, Link::DeCnicWrite), 1);
  EXPECT_DOUBLE_EQ(load(at, Link::DeDram), 1);
  EXPECT_LT(load(at, Link::DeCnicRead), 1);
  at = link_loads(paper(), 1, 7);  // P/D = 1/7
  EXPECT_DOUBLE_EQ(load(at, Link::PeCnicWrite), 1);
  // Outside: 8P1D saturates the DE CNIC write first.
  const auto out = link_loads(paper(), 8, 1);
  EXPECT_EQ(most_loaded(out).link, Link::DeCnicWrite);
  EXPECT_DOUBLE_EQ(most_loaded(out).fraction, 17.0 / 8);
}

TEST(AnalysisBandwidth, BasicLoadsHaveNoDePath) {
  const auto ls = link_loads(paper(), 1, 1, 1, 0);
  EXPECT_DOUBLE_EQ(load(ls, Link::DeSnic), 0);
  EXPECT_DOUBLE_EQ(load(ls, Link::PeCnicWrite), 0.125);
  EXPECT_DOUBLE_EQ(load(ls, Link::DeCnicRead), 0.125);
  EXPECT_DOUBLE_EQ(load(ls, Link::DeCnicWrite), 0.25);
  EXPECT_DOUBLE_EQ(load(ls, Link::DeDram), 0.2);
}

TEST(AnalysisBandwidth, PcieRowsCountDramSideCrossings) {
  BandwidthParams p = paper();
  p.pcie = 64e9;
  const auto ls = link_loads(p, 2, 1);
  const double c = 50e9 / (8 * 64e9);
  EXPECT_DOUBLE_EQ(load(ls, Link::PePcieH2d), c);
  EXPECT_DOUBLE_EQ(load(ls, Link::PePcieD2h), 0);
  EXPECT_DOUBLE_EQ(load(ls, Link::DePcieH2d), c * 4);
  EXPECT_DOUBLE_EQ(load(ls, Link::DePcieD2h), c * 2);
  EXPECT_EQ(link_loads(paper(), 2, 1).size(), 8u);  // no PCIe rows without a PCIe bandwidth
}

TEST(AnalysisBandwidth, OtherClosedForms) {
  // s = 2, g = 8, plenty of DRAM: 1/3 <= P/D <= min{2, 3/2} -> DE CNIC write binds alone.
  auto r = bottleneck_free_range({8, 2, 50e9, 1e15, 0});
  EXPECT_DOUBLE_EQ(r.lower, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.upper, 1.5);
  ASSERT_EQ(r.binding_upper.size(), 1u);
  EXPECT_EQ(r.binding_upper[0], Link::DeCnicWrite);
  // g = 4, s = 1, M/(Bs) = 10: 1/3 <= P/D <= min{2, 1.5, 3.5}.
  r = bottleneck_free_range({4, 1, 50e9, 500e9, 0});
  EXPECT_DOUBLE_EQ(r.lower, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.upper, 1.5);
  // Scarce DRAM, M/(Bs) = 5: DE DRAM alone caps P/D at 1.
  r = bottleneck_free_range({8, 1, 50e9, 250e9, 0});
  EXPECT_DOUBLE_EQ(r.upper, 1);
  ASSERT_EQ(r.binding_upper.size(), 1u);
  EXPECT_EQ(r.binding_upper[0], Link::DeDram);
  // g = 16, s = 1, M/(Bs) = 20: min{14, 7.5, 8.5}.
  r = bottleneck_free_range({16, 1, 50e9, 1000e9, 0});
  EXPECT_DOUBLE_EQ(r.lower, 1.0 / 15);
  EXPECT_DOUBLE_EQ(r.upper, 7.5);
}

TEST(AnalysisBandwidth, CorrectedFirstConditionIsSAtMostHalfG) {
  // s = 4 = g/2: PE CNIC read exactly saturated, still allowed (4/4 <= P/D <= min{0, ...} is empty anyway).
  auto r = bottleneck_free_range({8, 4, 50e9, 1e15, 0});
  EXPECT_TRUE(r.violated_fixed.empty());
  // s = 5 (<= g, the paper's looser condition, but > g/2): the PE CNIC read overflows, no P/D works.
  r = bottleneck_free_range({8, 5, 50e9, 1e15, 0});
  EXPECT_TRUE(r.empty);
  ASSERT_EQ(r.violated_fixed.size(), 1u);
  EXPECT_EQ(r.violated_fixed[0], Link::PeCnicRead);
  EXPECT_DOUBLE_EQ(link_loads({8, 5, 50e9, 1e15, 0}, 1, 1)[2].fraction, 1.25);
  // 2sB > M: the PE DRAM overflows.
  r = bottleneck_free_range({8, 1, 50e9, 90e9, 0});
  EXPECT_TRUE(r.empty);
  EXPECT_TRUE(has(r.violated_fixed, Link::PeDram));
}

TEST(AnalysisBandwidth, MaxReadRateFollowsSnicsInsideAndCapsOutside) {
  const auto p = paper();
  EXPECT_NEAR(max_read_rate_snics(p, 1, 1), 2, 1e-9);
  EXPECT_NEAR(max_read_rate_snics(p, 1, 1, false), 1, 1e-9);
  EXPECT_NEAR(max_read_rate_snics(p, 2, 4), 6, 1e-9);
  EXPECT_NEAR(max_read_rate_snics(p, 7, 2), 9, 1e-9);
  // D = 1: the DE CNIC write and DE DRAM cap PE-path reads at 3.5 SNICs (+1 DE SNIC), however many PEs.
  EXPECT_NEAR(max_read_rate_snics(p, 4, 1), 4.5, 1e-9);
  EXPECT_NEAR(max_read_rate_snics(p, 8, 1), 4.5, 1e-9);
  EXPECT_NEAR(max_read_rate_snics(p, 8, 1, false), 4, 1e-9);  // Basic: 2·(s/g)·8·x_P <= 1
  // P/D = 1/8: the PE CNIC write caps the DE path.
  EXPECT_LT(max_read_rate_snics(p, 1, 8), 9);
}

// The mix that attains the cap: at 8P1D the DE SNIC is saturated (DE-path reads load the DE CNIC write once per
// byte, PE-path ones twice) and the PE SNICs fill what the DE CNIC write leaves: 2·8·x_P + 1 = 8, x_P = 7/16.
TEST(AnalysisBandwidth, BestReadMixAttainsTheCapAndLoadsNoLinkOver) {
  const auto p = paper();
  const ReadMix m = best_read_mix(p, 8, 1);
  EXPECT_NEAR(m.x_de, 1, 1e-9);
  EXPECT_NEAR(m.x_pe, 7.0 / 16, 1e-9);
  EXPECT_NEAR(m.snics, 8 * m.x_pe + m.x_de, 1e-12);
  for (const auto& l : link_loads(p, 8, 1, m.x_pe, m.x_de)) EXPECT_LE(l.fraction, 1 + 1e-9) << link_name(l.link);
  const ReadMix in = best_read_mix(p, 1, 1);  // inside the range every SNIC is used
  EXPECT_NEAR(in.x_pe, 1, 1e-9);
  EXPECT_NEAR(in.x_de, 1, 1e-9);
  EXPECT_NEAR(best_read_mix(p, 8, 1, false).x_de, 0, 1e-12);  // Basic reads on the PE side only
}

TEST(AnalysisBandwidth, RejectsBadParameters) {
  EXPECT_THROW(bottleneck_free_range({0, 1, 50e9, 500e9, 0}), std::invalid_argument);
  EXPECT_THROW(bottleneck_free_range({8, 0, 50e9, 500e9, 0}), std::invalid_argument);
  EXPECT_THROW(bottleneck_free_range({8, 1, -1, 500e9, 0}), std::invalid_argument);
  EXPECT_THROW(link_loads(paper(), 0, 1), std::invalid_argument);
  EXPECT_THROW(link_loads(paper(), 1, 0, 1, 1), std::invalid_argument);
}

// Mixed hardware (issue 65): decode nodes of their own. Naming the prefill values again as the decode ones goes
// through the mixed formulas and must give the paper's range and loads exactly.
TEST(AnalysisBandwidth, MixedFormulasReduceToThePaperWhenBothRolesAreOne) {
  BandwidthParams same = paper();
  same.pcie = 64e9;
  BandwidthParams named = same;
  named.de_s = same.s, named.de_B = same.B, named.de_M = same.M, named.de_pcie = same.pcie;
  ASSERT_TRUE(named.mixed());
  const BandwidthRange a = bottleneck_free_range(same), b = bottleneck_free_range(named);
  EXPECT_NEAR(b.lower, a.lower, 1e-12);
  EXPECT_NEAR(b.upper, a.upper, 1e-12);
  EXPECT_EQ(b.binding_upper, a.binding_upper);
  for (const double P : {1.0, 3.0, 7.0}) {
    const auto la = link_loads(same, P, 2, 1, 1), lb = link_loads(named, P, 2, 1, 1);
    ASSERT_EQ(la.size(), lb.size());
    for (size_t i = 0; i < la.size(); ++i) EXPECT_NEAR(lb[i].fraction, la[i].fraction, 1e-12) << link_name(la[i].link);
    EXPECT_NEAR(max_read_rate_snics(named, P, 2), max_read_rate_snics(same, P, 2), 1e-12);
  }
}

// Decode nodes with 200 Gbps CNICs (B_D = 25 GB/s) and the same 50 GB/s SNIC (s_D = 2), by hand (S = S_D = 50e9):
//   lower  S_D/(B(g-s)) = 50/(50*7) = 1/7;  DE CNIC read (g-2s_D)B_D/S = 4*25/50 = 2;
//   DE CNIC write (g-s_D)B_D/(2S) = 6*25/100 = 1.5 (binds);  DE DRAM (M_D-3S_D)/(2S) = 350/100 = 3.5.
TEST(AnalysisBandwidth, MixedRangeByHand) {
  BandwidthParams p = paper();
  p.de_B = 25e9, p.de_s = 2;
  const BandwidthRange r = bottleneck_free_range(p);
  EXPECT_NEAR(r.lower, 1.0 / 7, 1e-12);
  EXPECT_NEAR(r.upper, 1.5, 1e-12);
  ASSERT_EQ(r.binding_upper.size(), 1u);
  EXPECT_EQ(r.binding_upper[0], Link::DeCnicWrite);
  // At P/D = 1.5 with both sides saturated the DE CNIC write runs exactly full: 2*S*r/(g*B_D) + S_D/(g*B_D) = 1.
  const auto loads = link_loads(p, 3, 2, 1, 1);
  EXPECT_NEAR(load(loads, Link::DeCnicWrite), 1.0, 1e-12);
  EXPECT_NEAR(load(loads, Link::DeCnicRead), (50e9 * 1.5 + 2 * 50e9) / (8 * 25e9), 1e-12);  // 0.875
  EXPECT_NEAR(most_loaded(loads).fraction, 1.0, 1e-12);
  // Inside the range every SNIC reads: P + D prefill SNICs (S_D = S). Twice the DE SNIC counts twice.
  EXPECT_NEAR(max_read_rate_snics(p, 1, 1), 2.0, 1e-12);
  p.de_s = 4;  // 100 GB/s DE SNICs over 25 GB/s CNICs: DE CNIC read (8-8)*25/50 = 0, the DE path cannot run at x_D = 1
  EXPECT_TRUE(bottleneck_free_range(p).empty);
  EXPECT_GT(max_read_rate_snics(p, 1, 1), 1.0);          // some DE reads still fit
  EXPECT_LT(max_read_rate_snics(p, 1, 1), 1.0 + 2.0);    // but not the DE SNIC's whole 2 units
}

// Every side-specific term apart (S_D != S, M_D != M), by hand: decode nodes with a 100 GB/s SNIC (s_D = 2 over
// 50 GB/s CNICs) and 400 GB/s of DRAM. Lower S_D/(B(g-s)) = 100/(50*7) = 2/7; DE CNIC read (g-2s_D)B_D/S = 4;
// DE CNIC write (g-s_D)B_D/(2S) = 3; DE DRAM (M_D-3S_D)/(2S) = (400-300)/100 = 1 (binds).
TEST(AnalysisBandwidth, MixedRangeWithItsOwnSnicAndDram) {
  BandwidthParams p = paper();
  p.de_s = 2, p.de_M = 400e9;
  const BandwidthRange r = bottleneck_free_range(p);
  EXPECT_NEAR(r.lower, 2.0 / 7, 1e-12);
  EXPECT_NEAR(r.upper, 1.0, 1e-12);
  ASSERT_EQ(r.binding_upper.size(), 1u);
  EXPECT_EQ(r.binding_upper[0], Link::DeDram);
  const auto loads = link_loads(p, 1, 1, 1, 1);
  EXPECT_NEAR(load(loads, Link::DeDram), (2 * 50e9 + 3 * 100e9) / 400e9, 1e-12);   // exactly full at P/D = 1
  EXPECT_NEAR(load(loads, Link::PeCnicWrite), (50e9 + 100e9) / (8 * 50e9), 1e-12);  // PE 4 + DE 5 (the 1/r term)
  EXPECT_NEAR(load(loads, Link::DeSnic), 1.0, 1e-12);
  // Inside the range every SNIC reads: the DE SNIC counts twice a prefill one.
  EXPECT_NEAR(max_read_rate_snics(p, 1, 1), 1 + 2, 1e-12);
}

// A scenario whose prefill nodes alone have their own hardware leaves the decode nodes on `topology`: the §4.2
// parameters take each side's (core/analysis/scenario_bandwidth.hpp).
TEST(AnalysisBandwidth, ScenarioParamsTakeEachRolesTopology) {
  Scenario sc;
  sc.topology.gpus_per_node = 8, sc.topology.cnic_bw = 50e9, sc.topology.snic_bw = 50e9, sc.topology.dram_bw = 500e9;
  sc.topology.pcie_bw = 64e9;
  Topology pe = sc.topology;
  pe.snic_bw = 25e9, pe.dram_bw = 250e9;
  sc.prefill_topology = pe;
  const BandwidthParams p = bandwidth_params(sc, true);
  EXPECT_DOUBLE_EQ(p.s, 0.5);
  EXPECT_DOUBLE_EQ(p.M, 250e9);
  EXPECT_TRUE(p.mixed());
  EXPECT_DOUBLE_EQ(p.de_s, 1.0);      // the decode nodes: `topology`
  EXPECT_DOUBLE_EQ(p.de_M, 500e9);
  EXPECT_DOUBLE_EQ(p.de_pcie, 64e9);
  EXPECT_FALSE(bandwidth_params(Scenario{}, false).mixed());
}
