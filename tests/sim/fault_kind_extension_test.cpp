// docs/architecture.md "How to add a fault kind", tried once: a kind whose effect exists, added in one file (here,
// this test, with register_fault_kind; in the tree, a FaultKind value and a row of kBuiltinFaultKinds), is valid by
// name for the loader and for --fault, follows its row's rules there, and runs: a node's SNIC held for maintenance
// is the built-in snic-down under another name, so the two runs differ in that name alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "core/config/faults.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "sim/run_scenario.hpp"

using namespace dualpath;

namespace {

const FaultKind kMaintenance = register_fault_kind("snic-maintenance", FaultTarget::Node, FaultEffect::SnicDown);

const std::string kScenario = DUALPATH_SOURCE_DIR "/scenarios/ds27b-1p1d.json";

// The ds27b 1P1D cluster, 32 agents, native engine, the prefill node's SNIC out from 20.37 s to 60 s.
Scenario with_fault(const std::string& kind) {
  return load_scenario(kScenario, {"workload.agents=32", "sim.engine=native", "policy.buffer=reserve",
                                   fault_override(kind + ":node=0,at=20.37s,until=60s")});
}

std::string load_error(const std::string& fault) {
  try {
    load_scenario(kScenario, {fault_override(fault)});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FaultKindExtension, TheLoaderTakesTheNameAndTheRowsRules) {
  EXPECT_EQ(fault_row(kMaintenance).name, "snic-maintenance");
  EXPECT_EQ(with_fault("snic-maintenance").faults.at(0).kind, kMaintenance);
  // What the row says it names and does decides the keys: a node, no GPU, no factor (the NIC carries nothing).
  EXPECT_NE(load_error("snic-maintenance:node=0,gpu=1,at=1s,until=2s").find("takes no gpu"), std::string::npos);
  EXPECT_NE(load_error("snic-maintenance:node=0,factor=0.5,at=1s,until=2s").find("takes no factor"),
            std::string::npos);
  EXPECT_NE(load_error("snic-maintenance:at=1s,until=2s").find("missing required key \"node\""), std::string::npos);
  // A name nobody registered is refused, and the message lists the added kind among the valid ones.
  const std::string unknown = load_error("snic-vacation:node=0,at=1s,until=2s");
  EXPECT_NE(unknown.find("snic-maintenance"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("snic-down"), std::string::npos) << unknown;
  EXPECT_THROW(register_fault_kind("snic-down", FaultTarget::Node, FaultEffect::SnicDown), std::invalid_argument);
}

TEST(FaultKindExtension, ItRunsAsTheKindWhoseEffectItShares) {
  const auto dir = std::filesystem::temp_directory_path() / ("dualpath-fault-kind-" + std::to_string(::getpid()));
  const auto added = sim::run_scenario(with_fault("snic-maintenance"), DUALPATH_SOURCE_DIR "/scenarios",
                                       (dir / "added").string());
  const auto builtin = sim::run_scenario(with_fault("snic-down"), DUALPATH_SOURCE_DIR "/scenarios",
                                         (dir / "builtin").string());
  std::filesystem::remove_all(dir);
  const auto& fault = added.summary.at("faults").at(0);
  EXPECT_EQ(fault.at("kind"), "snic-maintenance");
  EXPECT_EQ(fault.at("ended"), 60.0);
  EXPECT_GT(fault.at("reads_failed").get<int>() + fault.at("reads_moved").get<int>(), 0) << fault.dump();
  // The same run in every figure but the kind's name.
  std::string a = added.summary.dump(1), b = builtin.summary.dump(1);
  for (size_t at; (at = a.find("snic-maintenance")) != std::string::npos;) a.replace(at, 16, "snic-down");
  EXPECT_EQ(a, b);
}
