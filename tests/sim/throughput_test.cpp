// Simulator throughput (transfers per wall second) on a 2P4D cluster of 8-GPU nodes: a closed loop keeps K
// random transfers in flight until N have completed. Disabled by default (timing, not correctness); run with
//   dualpath_sim_tests --gtest_also_run_disabled_tests --gtest_filter='*Throughput*'
// and DUALPATH_BENCH_N / DUALPATH_BENCH_K / DUALPATH_BENCH_STACK_KIB to change the defaults (100000, 128, 8192).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

#include "sim/simgrid/simgrid_backend.hpp"
#include "sim_fixture.hpp"

namespace dualpath::sim::test {
namespace {

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtol(v, nullptr, 10) : fallback;
}

TEST(SimThroughput, DISABLED_RandomTransfers2P4D) {
  const long n = env_or("DUALPATH_BENCH_N", 100000);
  const long k = env_or("DUALPATH_BENCH_K", 128);
  Topology t = small_topology();
  t.gpus_per_node = 8;
  t.dram_bw = 500e9;
  t.nic_latency = 2e-6;
  SimOptions o;
  o.stack_kib = static_cast<int>(env_or("DUALPATH_BENCH_STACK_KIB", 8192));
  SimgridBackend b(t, deployment(2, 4), qos_on(), SimSpec{}, o);
  const int gpus = 6 * 8, nodes = 6;
  std::mt19937 rng(1);
  long started = 0, completed = 0;
  std::function<void()> next = [&] {
    if (started == n) return;
    ++started;
    std::uniform_int_distribution<int> kind(0, 5), gpu(0, gpus - 1), node(0, nodes - 1);
    std::uniform_real_distribution<double> size(4e6, 64e6);
    const double bytes = size(rng);
    const int g = gpu(rng);
    const int h = (g + 1 + gpu(rng) % (gpus - 1)) % gpus;
    auto done = [&] {
      ++completed;
      next();
    };
    switch (kind(rng)) {
      case 0: b.storage_read(node(rng), bytes, done); break;
      case 1: b.storage_write(node(rng), bytes, done); break;
      case 2: b.transfer(Hop::H2D, {Loc::Dram, g}, {Loc::Hbm, g}, bytes, TrafficClass::Kv, done); break;
      case 3: b.transfer(Hop::HbmToRemoteDram, {Loc::Hbm, g}, {Loc::Dram, h}, bytes, TrafficClass::Kv, done); break;
      case 4: b.transfer(Hop::RemoteDramToHbm, {Loc::Dram, g}, {Loc::Hbm, h}, bytes, TrafficClass::Kv, done); break;
      default: b.transfer(Hop::Collective, {Loc::Hbm, g}, {Loc::Hbm, h}, bytes, TrafficClass::Model, done); break;
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  b.run([&] {
    for (long i = 0; i < k; ++i) next();
  });
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(completed, n);
  std::printf("transfers=%ld in_flight=%ld stack_kib=%d wall=%.3fs -> %.0f transfers/s, %.0f solver steps/s "
              "(simulated %.3fs, %llu steps)\n",
              n, k, o.stack_kib, wall, static_cast<double>(n) / wall,
              static_cast<double>(b.stats().solver_steps) / wall, b.now(),
              static_cast<unsigned long long>(b.stats().solver_steps));
}

}  // namespace
}  // namespace dualpath::sim::test
