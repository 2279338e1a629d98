// The native engine's weighted max-min solver: closed forms and, on random instances, the bottleneck property
// that characterises weighted max-min fairness (every flow crosses a saturated link on which no flow has a higher
// rate per unit of weight) and feasibility (no link over capacity).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/native/maxmin.hpp"

namespace dualpath::sim {
namespace {

struct FlowOut {
  double weight = 1;
  double rate = 0;
};
struct Instance {
  std::vector<std::vector<int32_t>> routes;
  std::vector<FlowOut> flows;
  std::vector<int> ids;
  void add(std::vector<int32_t> links, double weight = 1) {
    routes.push_back(std::move(links));
    flows.push_back(FlowOut{weight, 0});
  }
  void solve(MaxMin& m) {
    for (size_t i = ids.size(); i < flows.size(); ++i)
      ids.push_back(m.add(routes[i].data(), static_cast<int>(routes[i].size()), flows[i].weight));
    m.solve();
    for (size_t i = 0; i < flows.size(); ++i) flows[i].rate = m.rate(ids[i]);
  }
};

// Feasibility (no link over capacity) and the bottleneck property of weighted max-min (every flow crosses a
// saturated link on which no flow has a higher rate per unit of weight). Returns "" or what is wrong.
std::string check_maxmin(const std::vector<double>& cap, const std::vector<std::vector<int32_t>>& routes,
                         const std::vector<double>& weights, const std::vector<double>& rates) {
  std::vector<double> load(cap.size(), 0);
  for (size_t f = 0; f < routes.size(); ++f) {
    if (!(rates[f] > 0)) return "flow " + std::to_string(f) + " has no rate";
    for (int32_t l : routes[f]) load[static_cast<size_t>(l)] += rates[f];
  }
  for (size_t l = 0; l < cap.size(); ++l)
    if (load[l] > cap[l] * (1 + 1e-9)) return "link " + std::to_string(l) + " over capacity";
  for (size_t f = 0; f < routes.size(); ++f) {
    const double level = rates[f] / weights[f];
    bool bottlenecked = false;
    for (int32_t l : routes[f]) {
      if (load[static_cast<size_t>(l)] < cap[static_cast<size_t>(l)] * (1 - 1e-9)) continue;
      bool highest = true;
      for (size_t g = 0; g < routes.size(); ++g) {
        const auto& r = routes[g];
        if (std::find(r.begin(), r.end(), l) != r.end() && rates[g] / weights[g] > level * (1 + 1e-9))
          highest = false;
      }
      bottlenecked = bottlenecked || highest;
    }
    if (!bottlenecked) return "flow " + std::to_string(f) + " has no bottleneck";
  }
  return "";
}

TEST(MaxMin, EqualFlowsSplitALink) {
  MaxMin m({50e9});
  Instance in;
  in.add({0});
  in.add({0});
  in.solve(m);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 25e9);
  EXPECT_DOUBLE_EQ(in.flows[1].rate, 25e9);
}

TEST(MaxMin, WeightsSplit99To1) {
  MaxMin m({50e9});
  Instance in;
  in.add({0}, 99);
  in.add({0}, 1);
  in.solve(m);
  EXPECT_NEAR(in.flows[0].rate, 49.5e9, 1);
  EXPECT_NEAR(in.flows[1].rate, 0.5e9, 1);
}

TEST(MaxMin, ABottleneckElsewhereLeavesTheRestToOthers) {
  // Link 0 (10) carries f0 and f1; link 1 (4) carries f1 and f2. Link 1's level 2 is lowest: f1 = f2 = 2, and
  // f0 takes the 8 left on link 0.
  MaxMin m({10, 4});
  Instance in;
  in.add({0});
  in.add({0, 1});
  in.add({1});
  in.solve(m);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 8);
  EXPECT_DOUBLE_EQ(in.flows[1].rate, 2);
  EXPECT_DOUBLE_EQ(in.flows[2].rate, 2);
}

TEST(MaxMin, WeightedFlowCappedElsewhereIsWorkConserving) {
  // A heavy flow held to 1 by link 1 leaves 9 of link 0 to the light one (weights only split a contested link).
  MaxMin m({10, 1});
  Instance in;
  in.add({0, 1}, 99);
  in.add({0}, 1);
  in.solve(m);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 1);
  EXPECT_DOUBLE_EQ(in.flows[1].rate, 9);
}

TEST(MaxMin, OnlyTheChangedComponentIsResolvedAndRemovalFreesCapacity) {
  MaxMin m({10, 10, 6});
  Instance in;
  in.add({0});
  in.add({0});
  in.add({1, 2});
  in.solve(m);
  EXPECT_EQ(m.solved_flows(), 3u);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 5);
  EXPECT_DOUBLE_EQ(in.flows[2].rate, 6);
  // A flow on link 2 joins: only the component {links 1, 2} is re-solved.
  in.add({2});
  in.solve(m);
  EXPECT_EQ(m.solved_flows(), 2u);
  EXPECT_DOUBLE_EQ(in.flows[2].rate, 3);
  EXPECT_DOUBLE_EQ(in.flows[3].rate, 3);
  EXPECT_DOUBLE_EQ(in.flows[0].rate, 5);
  // One of link 0's flows leaves: the other gets the whole link.
  m.remove(in.ids[1]);
  m.solve();
  EXPECT_EQ(m.solved_flows(), 1u);
  EXPECT_DOUBLE_EQ(m.rate(in.ids[0]), 10);
  m.solve();
  EXPECT_EQ(m.solved_flows(), 0u);  // nothing changed
}

// Random instances: `links` in [links_lo, links_lo + links_n), capacities in [cap_lo, cap_lo + cap_n), flows in
// [flows_lo, flows_lo + flows_n) over [len_lo, len_lo + 4) links each (repeats dropped), a third of them weighted
// 99; every solve must meet the max-min conditions.
void check_random_instances(uint32_t seed, int trials, int links_lo, int links_n, int cap_lo, int cap_n,
                            int flows_lo, int flows_n, int len_lo) {
  std::mt19937 rng(seed);
  auto draw = [&rng](int lo, int n) { return lo + static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int trial = 0; trial < trials; ++trial) {
    const int links = draw(links_lo, links_n);
    std::vector<double> cap;
    for (int l = 0; l < links; ++l) cap.push_back(draw(cap_lo, cap_n));
    MaxMin m(cap);
    Instance in;
    const int flows = draw(flows_lo, flows_n);
    for (int f = 0; f < flows; ++f) {
      std::vector<int32_t> route;
      const int len = draw(len_lo, 4);
      for (int k = 0; k < len; ++k) {
        const auto l = static_cast<int32_t>(draw(0, links));
        if (std::find(route.begin(), route.end(), l) == route.end()) route.push_back(l);
      }
      in.add(route, (rng() % 3 == 0) ? 99.0 : 1.0);
    }
    in.solve(m);
    std::vector<double> w, rates;
    for (const auto& f : in.flows) w.push_back(f.weight), rates.push_back(f.rate);
    const std::string bad = check_maxmin(cap, in.routes, w, rates);
    ASSERT_EQ(bad, "") << "seed " << seed << " trial " << trial;
  }
}

TEST(MaxMin, RandomInstancesAreFeasibleAndBottlenecked) { check_random_instances(7, 200, 2, 12, 1, 100, 1, 20, 1); }

// Large, densely coupled components (a hundred flows and more over tens of links).
TEST(MaxMin, LargeComponentsAreMaxMinToo) { check_random_instances(11, 30, 30, 30, 10, 90, 80, 60, 2); }

// The incremental solver (components, redundant links, active set) against the max-min conditions and against
// a from-scratch solve of the same flows after every change, over random sequences of arrivals and departures
// on a fabric-like instance where a wide shared link (a node's DRAM) binds only sometimes.
// keep_below_departures (a departure re-fills only the flows at or above its level) and keep_below_arrivals (an
// arrival re-fills only the flows at or above the first saturation of its links) must give the same rates.
class IncrementalSolves : public ::testing::TestWithParam<MaxMin::Options> {};

TEST_P(IncrementalSolves, MatchFromScratch) {
  std::mt19937 rng(3);
  // Links 0-7: narrow per-port links (50); 8-9: two "DRAM" links (220) that 5+ ports can overload; 10-13: wider
  // links (64) that rarely bind.
  std::vector<double> cap = {50, 50, 50, 50, 50, 50, 50, 50, 220, 220, 64, 64, 64, 64};
  MaxMin inc(cap, GetParam());
  size_t kept_after_departures = 0, kept_after_arrivals = 0;
  std::vector<std::vector<int32_t>> routes(400);
  std::vector<double> weights(400);
  std::vector<int> live;  // indices into routes of flows in `inc`
  std::vector<int> id_of(400, -1);
  int joined = 0;
  for (int step = 0; step < 400; ++step) {
    const bool arrive = live.size() < 3 || (live.size() < 40 && rng() % 3 != 0);
    if (arrive) {
      const int i = step;
      auto& r = routes[static_cast<size_t>(i)];
      r = {static_cast<int32_t>(rng() % 8), static_cast<int32_t>(8 + rng() % 2)};
      if (rng() % 2) r.push_back(static_cast<int32_t>(10 + rng() % 4));
      if (rng() % 3 == 0) {
        const auto other = static_cast<int32_t>(rng() % 8);
        if (other != r[0]) r.push_back(other);
      }
      weights[static_cast<size_t>(i)] = rng() % 4 == 0 ? 99 : 1;
      id_of[static_cast<size_t>(i)] = inc.add(r.data(), static_cast<int>(r.size()), weights[static_cast<size_t>(i)]);
      live.push_back(i);
    } else {
      const size_t k = rng() % live.size();
      inc.remove(id_of[static_cast<size_t>(live[k])]);
      live.erase(live.begin() + static_cast<long>(k));
    }
    if (rng() % 4 == 0 && step + 1 < 400) continue;  // several changes between solves, too
    inc.solve();
    // With keep_below_*, the flows below the threshold are not re-solved (this counts solves after one change).
    (arrive ? kept_after_arrivals : kept_after_departures) += inc.solved().size() < live.size();
    MaxMin fresh(cap);
    std::vector<int> fresh_id;
    for (int i : live)
      fresh_id.push_back(fresh.add(routes[static_cast<size_t>(i)].data(),
                                   static_cast<int>(routes[static_cast<size_t>(i)].size()),
                                   weights[static_cast<size_t>(i)]));
    fresh.solve();
    std::vector<std::vector<int32_t>> live_routes;
    std::vector<double> live_w, live_rates;
    for (int i : live) {
      live_routes.push_back(routes[static_cast<size_t>(i)]);
      live_w.push_back(weights[static_cast<size_t>(i)]);
      live_rates.push_back(inc.rate(id_of[static_cast<size_t>(i)]));
    }
    const std::string bad = check_maxmin(cap, live_routes, live_w, live_rates);
    ASSERT_EQ(bad, "") << "step " << step;
    std::vector<double> dram(2, 0);
    for (size_t k = 0; k < live.size(); ++k) {
      const double a = inc.rate(id_of[static_cast<size_t>(live[k])]), b = fresh.rate(fresh_id[k]);
      ASSERT_NEAR(a, b, 1e-9 * b) << "step " << step << " flow " << live[k];
      for (int32_t l : routes[static_cast<size_t>(live[k])])
        if (l == 8 || l == 9) dram[static_cast<size_t>(l - 8)] += a;
    }
    for (double d : dram) joined += d >= 220 * (1 - 1e-9);
  }
  EXPECT_GT(joined, 0) << "the DRAM-like links never bound: the test does not exercise the active set";
  if (GetParam().keep_below_departures) {
    EXPECT_GT(kept_after_departures, 20u) << "departures re-solved every flow: nothing was kept below them";
  }
  if (GetParam().keep_below_arrivals) {
    EXPECT_GT(kept_after_arrivals, 20u) << "arrivals re-solved every flow: nothing was kept below them";
  }
}
INSTANTIATE_TEST_SUITE_P(MaxMin, IncrementalSolves,
                         ::testing::Values(MaxMin::Options{}, MaxMin::Options{.keep_below_departures = true},
                                           MaxMin::Options{.keep_below_arrivals = true},
                                           MaxMin::Options{.keep_below_departures = true, .keep_below_arrivals = true}),
                         [](const auto& info) {
                           const MaxMin::Options& o = info.param;
                           if (o.keep_below_departures && o.keep_below_arrivals) return std::string("KeepBelowBoth");
                           if (o.keep_below_departures) return std::string("KeepBelowDepartures");
                           if (o.keep_below_arrivals) return std::string("KeepBelowArrivals");
                           return std::string("WholeComponents");
                         });

// Progressive filling fixes the flows of the link with the lowest level (of equal levels, the first slot). The
// solver keeps that link as levels change instead of scanning every link after every step; it must pick the same
// link as the scan, so rates agree to the last bit. Random arrivals and departures on a fabric-like instance
// (ports and shared DRAM-like links with equal capacities, so ties are common), solved by a solver that keeps
// the lowest link and one that scans after every step.
TEST(MaxMin, KeptLowestLinkIsTheScannedOne) {
  std::mt19937 rng(5);
  std::vector<double> cap;
  for (int p = 0; p < 48; ++p) cap.push_back(50);  // ports
  for (int d = 0; d < 6; ++d) cap.push_back(300);  // DRAM-like, shared by 8 ports each
  MaxMin kept(cap), scanned(cap, {.track_lowest = false});
  // And solvers that re-fill only above departures, and above departures and arrivals: the same rates up to
  // rounding, on large components.
  MaxMin below(cap, {.keep_below_departures = true});
  MaxMin both(cap, {.keep_below_departures = true, .keep_below_arrivals = true});
  std::vector<int> below_id, both_id;
  std::vector<std::pair<int, int>> live;  // ids in kept, scanned
  size_t most_flows = 0, solves = 0, fewer_below = 0, fewer_after_arrivals = 0;
  bool arrived = false;  // a flow arrived since the last solve
  for (int step = 0; step < 3000; ++step) {
    if (live.size() < 20 || (live.size() < 400 && rng() % 3 != 0)) {
      const auto a = static_cast<int32_t>(rng() % 48), b = static_cast<int32_t>(rng() % 48);
      std::vector<int32_t> r = {a};
      if (b != a) r.push_back(b);
      if (rng() % 2) r.push_back(static_cast<int32_t>(48 + a / 8));
      const double w = rng() % 3 == 0 ? 99 : 1;
      live.emplace_back(kept.add(r.data(), static_cast<int>(r.size()), w),
                        scanned.add(r.data(), static_cast<int>(r.size()), w));
      below_id.push_back(below.add(r.data(), static_cast<int>(r.size()), w));
      both_id.push_back(both.add(r.data(), static_cast<int>(r.size()), w));
      arrived = true;
    } else {
      const size_t k = rng() % live.size();
      kept.remove(live[k].first);
      scanned.remove(live[k].second);
      below.remove(below_id[k]);
      both.remove(both_id[k]);
      live.erase(live.begin() + static_cast<long>(k));
      below_id.erase(below_id.begin() + static_cast<long>(k));
      both_id.erase(both_id.begin() + static_cast<long>(k));
    }
    if (rng() % 3 == 0) continue;
    kept.solve();
    scanned.solve();
    below.solve();
    both.solve();
    ++solves;
    most_flows = std::max(most_flows, kept.solved().size());
    fewer_below += below.solved().size() < kept.solved().size();
    if (arrived) fewer_after_arrivals += both.solved().size() < kept.solved().size();
    arrived = false;
    for (size_t i = 0; i < live.size(); ++i) {
      ASSERT_EQ(kept.rate(live[i].first), scanned.rate(live[i].second)) << "step " << step;
      ASSERT_NEAR(below.rate(below_id[i]), kept.rate(live[i].first), 1e-9 * kept.rate(live[i].first))
          << "step " << step;
      ASSERT_NEAR(both.rate(both_id[i]), kept.rate(live[i].first), 1e-9 * kept.rate(live[i].first))
          << "step " << step;
    }
  }
  EXPECT_GT(fewer_below, 100u) << "departures never re-solved fewer flows above their level";
  EXPECT_GT(fewer_after_arrivals, 100u) << "arrivals never re-solved fewer flows than the whole components";
  EXPECT_GT(solves, 1000u);
  EXPECT_GT(most_flows, 100u) << "no large component: ties and slot moves are hardly exercised";
}

}  // namespace
}  // namespace dualpath::sim

namespace dualpath::sim {
namespace {

// Issue 63, item 3: no exact decomposition of a CNIC plane finer than the components the solver already re-solves
// (flows linked through saturated links). In one plane, PE GPU p0's CNIC write link A takes KV from three DE nodes
// (x, and two that arrive) and y from DE node d0; d0's CNIC read link B sends y, z (to PE GPU p1) and b (to a
// third PE); p1's CNIC write link C takes z and w (from another DE node). The arrivals on A lower y, which hands
// B's capacity to z, which takes it from w on C: w, two saturated links away from the arrival and sharing no link
// with it, drops from 2/3 to 5/8 of a CNIC. At 48P96D such chains span a plane: the largest pass of a 600-s run
// re-solved 1,552 flows over 592 saturated CNIC links on 101 nodes (docs/performance.md, "Round 4").
TEST(MaxMin, ACnicPlaneCouplesFlowsTwoSaturatedLinksApart) {
  const double c = 50e9;
  MaxMin m({c, c, c});
  const int32_t a[] = {0}, ab[] = {0, 1}, b[] = {1}, bc[] = {1, 2}, cc[] = {2};
  const int x = m.add(a, 1, 1), y = m.add(ab, 2, 1), z = m.add(bc, 2, 1), bb = m.add(b, 1, 1), w = m.add(cc, 1, 1);
  m.solve();
  EXPECT_NEAR(m.rate(y), c / 3, 1);
  EXPECT_NEAR(m.rate(z), c / 3, 1);
  EXPECT_NEAR(m.rate(bb), c / 3, 1);
  EXPECT_NEAR(m.rate(x), 2 * c / 3, 1);
  EXPECT_NEAR(m.rate(w), 2 * c / 3, 1);
  m.add(a, 1, 1);
  m.add(a, 1, 1);
  m.solve();
  EXPECT_NEAR(m.rate(y), c / 4, 1);
  EXPECT_NEAR(m.rate(z), 3 * c / 8, 1);
  EXPECT_NEAR(m.rate(w), 5 * c / 8, 1);
  const auto& solved = m.solved();
  EXPECT_NE(std::find(solved.begin(), solved.end(), w), solved.end());  // the re-solve reached it
}

}  // namespace
}  // namespace dualpath::sim
