// Shared helpers for the simulator tests. Every TEST builds its own SimBackend: SimGrid allows one engine per
// process, and ctest runs each test as its own process (gtest_discover_tests).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/config/scenario.hpp"
#include "sim/link_report.hpp"
#include "sim/sim_backend.hpp"

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

}  // namespace dualpath::sim::test
