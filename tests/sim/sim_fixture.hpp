// Shared helpers for the simulator tests. Every test builds its own simulator: SimGrid allows one engine per
// process, and ctest runs each test as its own process (gtest_discover_tests). Tests that hold for both network
// engines (sim/simulator.hpp) are TEST_P over EngineTest and run once per engine.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/config/scenario.hpp"
#include "core/run/link_report.hpp"
#include "sim/simulator.hpp"

namespace dualpath::sim::test {

// A small cluster with round numbers: 2 GPUs per node, 50 GB/s NICs, no latency, storage never the bottleneck.
inline Topology small_topology() {
  Topology t;
  t.name = "test";
  t.gpus_per_node = 2;
  t.cnic_bw = 50e9;
  t.snic_bw = 50e9;
  t.pcie_bw = 64e9;
  t.dram_bw = 500e9;
  t.nic_latency = 0;
  t.storage.servers = 0;  // one per node
  t.storage.server_nic_bw = 0;  // not modelled
  t.storage.ssd_read_bw = 0;
  t.storage.ssd_write_bw = 0;
  return t;
}

inline Deployment deployment(int prefill_nodes, int decode_nodes) {
  Deployment d;
  d.prefill_nodes = prefill_nodes;
  d.decode_nodes = decode_nodes;
  d.pe_group_gpus = 2;
  d.de_group_gpus = 2;
  return d;
}

inline QosSpec qos_on() { return QosSpec{}; }
inline QosSpec qos_off() {
  QosSpec q;
  q.enabled = false;
  return q;
}

// The link called `name` (throws if there is none).
inline const LinkInfo& link_named(const LinkReport& r, const std::string& name) {
  for (const auto& l : r.links)
    if (l.name == name) return l;
  throw std::runtime_error("no link named " + name);
}

// Relative closeness for closed-form checks.
inline bool near_rel(double actual, double expected, double rel) {
  return std::abs(actual - expected) <= rel * std::abs(expected);
}

// The engine of the running test (set by EngineTest) and a simulator of it, for tests and their helpers.
inline std::string& current_engine() {
  static std::string engine = "simgrid";
  return engine;
}
inline std::unique_ptr<Simulator> make(const Hardware& t, const Deployment& d, const QosSpec& q, const SimSpec& s,
                                       const SimOptions& o = {}) {
  return make_simulator(choice_value(kNetworkEngines, current_engine()), t, d, q, s, o);
}

// A test run once per network engine: GetParam() is "simgrid" or "native".
class EngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { current_engine() = GetParam(); }
};
inline std::string engine_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }
#define DUALPATH_BOTH_ENGINES(suite) \
  INSTANTIATE_TEST_SUITE_P(Engines, suite, ::testing::Values(std::string("simgrid"), std::string("native")), \
                           ::dualpath::sim::test::engine_name)

}  // namespace dualpath::sim::test
