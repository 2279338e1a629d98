// Flow groups (Backend::transfer_group): transfers the caller waits for as one, a lockstep step's EP all-to-all.
// Both engines must run the group's one callback exactly when, and in the order, the last member's own callback
// would have run: the native engine queues one event per group (docs/performance.md, "Flow groups"), SimGrid
// counts the members down.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

class SimFlowGroup : public EngineTest {};

constexpr double GB = 1e9;

// Two nodes of two GPUs: the collectives GPU 0 -> 2 and GPU 1 -> 3 cross disjoint CNICs (50 GB/s each).
TEST_P(SimFlowGroup, EndsWhenItsSlowestMemberEnds) {
  Topology t = small_topology();
  t.nic_latency = 2e-6;
  auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  int calls = 0;
  double done_at = -1;
  b.run([&] {
    b.transfer_group(Hop::Collective, {{{Loc::Hbm, 0}, {Loc::Hbm, 2}, 1 * GB}, {{Loc::Hbm, 1}, {Loc::Hbm, 3}, 2 * GB}},
                     TrafficClass::Model, [&] {
                       ++calls;
                       done_at = b.now();
                     });
  });
  EXPECT_EQ(calls, 1);
  // 2 GB at 50 GB/s, then the route's latency (paid after the last byte).
  const double latency = done_at - 2 * GB / 50e9;
  EXPECT_GT(latency, 0);
  EXPECT_LT(latency, 1e-4);
  const LinkReport& r = b.links();
  EXPECT_TRUE(near_rel(link_named(r, "cnic0_rd").bytes(), 1 * GB, 1e-9));
  EXPECT_TRUE(near_rel(link_named(r, "cnic1_rd").bytes(), 2 * GB, 1e-9));
}

// Under contention (a KV flow shares GPU 1's CNIC), the group ends at the very instant the same transfers started
// one by one end, and every link carries the same bytes. Native only: it runs two simulations, and SimGrid's
// groups are those transfers started one by one (Simulator::start_flow_group).
TEST(SimFlowGroupNative, SameInstantAsItsMembersStartedAlone) {
  current_engine() = "native";
  Topology t = small_topology();
  t.nic_latency = 3e-6;
  std::vector<Backend::GroupPart> parts{{{Loc::Hbm, 0}, {Loc::Hbm, 2}, 1.5 * GB},
                                        {{Loc::Hbm, 1}, {Loc::Hbm, 3}, 1 * GB},
                                        {{Loc::Hbm, 2}, {Loc::Hbm, 0}, 0.25 * GB}};
  auto run = [&](bool grouped, double& kv_end, std::vector<double>& bytes) {
    auto bp = make(t, deployment(1, 1), qos_on(), SimSpec{});
    Simulator& b = *bp;
    double end = -1;
    b.run([&] {
      b.transfer(Hop::RemoteDramToHbm, {Loc::Dram, 3}, {Loc::Hbm, 1}, 2 * GB, TrafficClass::Kv,
                 [&] { kv_end = b.now(); });
      if (grouped) {
        b.transfer_group(Hop::Collective, parts, TrafficClass::Model, [&] { end = b.now(); });
      } else {
        auto left = std::make_shared<int>(static_cast<int>(parts.size()));
        for (const auto& p : parts)
          b.transfer(Hop::Collective, p.src, p.dst, p.bytes, TrafficClass::Model, [&, left] {
            if (--*left == 0) end = b.now();
          });
      }
    });
    for (const auto& l : b.links().links) bytes.push_back(l.bytes());
    return end;
  };
  double kv_grouped = -1, kv_alone = -1;
  std::vector<double> bytes_grouped, bytes_alone;
  const double grouped = run(true, kv_grouped, bytes_grouped);
  const double alone = run(false, kv_alone, bytes_alone);
  EXPECT_GT(grouped, 1.5 * GB / 50e9);
  EXPECT_EQ(grouped, alone);
  EXPECT_EQ(kv_grouped, kv_alone);
  EXPECT_EQ(bytes_grouped, bytes_alone);
}

// The group's callback takes the last member's place among events due at the same instant: after a transfer
// started before that member and ending with it, before one started after it.
TEST_P(SimFlowGroup, RunsInTheLastMembersPlace) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  std::string order;
  b.run([&] {
    b.transfer(Hop::Collective, {Loc::Hbm, 1}, {Loc::Hbm, 3}, 1 * GB, TrafficClass::Model, [&] { order += "a"; });
    b.transfer_group(Hop::Collective, {{{Loc::Hbm, 0}, {Loc::Hbm, 2}, 1 * GB}}, TrafficClass::Model,
                     [&] { order += "g"; });
    b.transfer(Hop::Collective, {Loc::Hbm, 3}, {Loc::Hbm, 1}, 1 * GB, TrafficClass::Model, [&] { order += "b"; });
  });
  EXPECT_EQ(order, "agb");
}

// Zero-byte members complete at once, as a zero-byte transfer does: a group of them runs its callback at the
// instant it started, from the event loop (not inside the call), and one beside a real member waits for it.
TEST_P(SimFlowGroup, ZeroByteMembers) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  double empty_at = -1, mixed_at = -1;
  bool inside = false;
  b.run([&] {
    b.timer(0.5, [&] {
      inside = true;
      b.transfer_group(Hop::Collective, {{{Loc::Hbm, 0}, {Loc::Hbm, 2}, 0}, {{Loc::Hbm, 1}, {Loc::Hbm, 3}, 0}},
                       TrafficClass::Model, [&] {
                         EXPECT_FALSE(inside);
                         empty_at = b.now();
                       });
      inside = false;
    });
    b.transfer_group(Hop::Collective, {{{Loc::Hbm, 0}, {Loc::Hbm, 2}, 0}, {{Loc::Hbm, 1}, {Loc::Hbm, 3}, 1 * GB}},
                     TrafficClass::Model, [&] { mixed_at = b.now(); });
  });
  EXPECT_DOUBLE_EQ(empty_at, 0.5);
  EXPECT_TRUE(near_rel(mixed_at, 1 * GB / 50e9, 1e-9));
}

TEST_P(SimFlowGroup, RefusesAnEmptyGroupAndBadMembers) {
  auto bp = make(small_topology(), deployment(1, 1), qos_on(), SimSpec{});
  Simulator& b = *bp;
  b.run([&] {
    EXPECT_THROW(b.transfer_group(Hop::Collective, {}, TrafficClass::Model, [] {}), std::invalid_argument);
    EXPECT_THROW(b.transfer_group(Hop::Collective, {{{Loc::Hbm, 0}, {Loc::Hbm, 2}, -1}}, TrafficClass::Model, [] {}),
                 std::invalid_argument);
    EXPECT_THROW(b.transfer_group(Hop::Collective, {{{Loc::Dram, 0}, {Loc::Hbm, 2}, 1}}, TrafficClass::Model, [] {}),
                 std::invalid_argument);
    EXPECT_THROW(b.transfer_group(Hop::Collective, {{{Loc::Hbm, 0}, {Loc::Hbm, 2}, 1}}, TrafficClass::Model, nullptr),
                 std::invalid_argument);
  });
}

DUALPATH_BOTH_ENGINES(SimFlowGroup);

}  // namespace
}  // namespace dualpath::sim::test
