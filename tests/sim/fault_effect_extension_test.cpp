// docs/architecture.md "How to add a fault effect", tried once: an effect that no built-in kind has, added in one
// file (here, this test; in the tree, a file under core/cluster/faults/ and its line in effect_table.cpp, plus a
// FaultEffect value and its loader rules): the effect's value (register_fault_effect), a kind that names it
// (register_fault_kind) and its handler (register_fault_handler). "prefill-drain" takes a prefill node's engines out
// of placement while it is active (an operator draining the node for maintenance) without failing anything: no
// round is placed on the node in the window, and every round completes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/cluster/faults/fault_handler.hpp"
#include "core/config/faults.hpp"
#include "core/config/loader.hpp"
#include "sim/run_scenario.hpp"

using namespace dualpath;

namespace {

class PrefillDrain final : public FaultHandler {
 public:
  void begins(FaultScope& s, size_t i) override { set(s, s.cluster.faults[i].spec.node, false); }
  void ends(FaultScope& s, size_t i) override {
    set(s, s.cluster.faults[i].spec.node, true);
    s.placement.arm_fetches();  // the node's groups take requests again
  }

 private:
  static void set(FaultScope& s, int node, bool take) {
    for (auto& e : s.cluster.view.engines)
      if (e.node == node && e.prefill) e.can_take = take && !s.cluster.faults.engine_lost(e.gpu);
  }
};

const FaultEffect kDrainEffect = register_fault_effect();
const FaultKind kDrain = register_fault_kind("prefill-drain", FaultTarget::Node, kDrainEffect);
const bool kRegistered = [] {
  register_fault_handler(kDrainEffect, std::make_unique<PrefillDrain>());
  return true;
}();

const std::string kScenario = DUALPATH_SOURCE_DIR "/scenarios/ds27b-1p1d.json";
constexpr double kAt = 20, kUntil = 60;

}  // namespace

TEST(FaultEffectExtension, ADrainedNodeTakesNoRoundWhileActiveAndEveryRoundCompletes) {
  ASSERT_TRUE(kRegistered);
  EXPECT_GE(static_cast<int>(kDrainEffect), kBuiltinFaultEffects);
  const Scenario sc = load_scenario(
      kScenario, {"workload.agents=32", "sim.engine=native", "deployment.prefill_nodes=2",
                  fault_override("prefill-drain:node=0,at=" + std::to_string(kAt) + "s,until=" +
                                 std::to_string(kUntil) + "s")});
  ASSERT_EQ(sc.faults.at(0).kind, kDrain);
  const auto dir = std::filesystem::temp_directory_path() / ("dualpath-fault-effect-" + std::to_string(::getpid()));
  const auto out = sim::run_scenario(sc, DUALPATH_SOURCE_DIR "/scenarios", dir.string());
  EXPECT_TRUE(out.summary.at("complete").get<bool>());
  const auto& fault = out.summary.at("faults").at(0);
  EXPECT_EQ(fault.at("kind"), "prefill-drain");
  EXPECT_EQ(fault.at("started"), kAt);
  EXPECT_EQ(fault.at("ended"), kUntil);
  // requests.csv: no placement on node 0's prefill engines (GPUs 0..gpus_per_node-1) inside the window, some on
  // them before or after it, and some on node 1's inside it.
  std::ifstream csv(dir / "requests.csv");
  std::string line;
  std::getline(csv, line);
  int inside_drained = 0, outside_drained = 0, inside_other = 0;
  const int gpn = sc.topology.gpus_per_node;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    const int pe = std::stoi(f.at(7));
    const double assigned = std::stod(f.at(11));
    if (pe < 0 || assigned < 0) continue;
    const bool inside = assigned >= kAt && assigned < kUntil;
    if (pe < gpn) (inside ? inside_drained : outside_drained) += 1;
    else if (inside) ++inside_other;
  }
  std::filesystem::remove_all(dir);
  EXPECT_EQ(inside_drained, 0);
  EXPECT_GT(outside_drained, 0);
  EXPECT_GT(inside_other, 0);
}
