// Scheduling decisions at the paper's largest scale: 1,152 engines (48P96D, 8 GPUs per node), 10,000 queued
// requests. Reports the cost per placed request of Algorithm 1 (PE), the two-level DE selection and the
// read-path choice. Target (issue 3): under 5 us per request, median of repetitions.
#include <benchmark/benchmark.h>

#include <deque>
#include <random>

#include "core/sched/de_selection.hpp"
#include "core/sched/pe_selection.hpp"
#include "core/sched/policy_registry.hpp"

using namespace dualpath;

namespace {
constexpr int kGpusPerNode = 8, kPrefillNodes = 48, kDecodeNodes = 96;

ClusterView big_view(int pe_group, int de_group) {
  ClusterView v;
  v.gpus_per_node = kGpusPerNode;
  v.alpha_tokens = 3'700'000;
  v.beta_tokens = 400'000;
  const int nodes = kPrefillNodes + kDecodeNodes;
  v.nodes.resize(nodes);
  v.engines.resize(nodes * kGpusPerNode);
  std::mt19937_64 rng(7);
  for (int n = 0; n < nodes; ++n) {
    v.nodes[n].prefill = n < kPrefillNodes;
    v.nodes[n].read_queue_tokens = static_cast<int64_t>(rng() % 8'000'000);
  }
  auto groups = [&](int first_node, int count, int size) {
    std::vector<std::vector<int>> gs;
    for (int g = first_node * kGpusPerNode; g < (first_node + count) * kGpusPerNode; g += size) {
      std::vector<int> members;
      for (int e = g; e < g + size; ++e) members.push_back(e);
      gs.push_back(members);
    }
    return gs;
  };
  v.pe_groups = groups(0, kPrefillNodes, pe_group);
  v.de_groups = groups(kPrefillNodes, kDecodeNodes, de_group);
  for (auto* gs : {&v.pe_groups, &v.de_groups})
    for (size_t g = 0; g < gs->size(); ++g)
      for (int e : (*gs)[g]) {
        auto& en = v.engines[e];
        en.gpu = e, en.node = e / kGpusPerNode, en.group = static_cast<int>(g);
        en.tok = static_cast<int64_t>(rng() % 300'000);
        en.seq = static_cast<int>(rng() % 64);
        en.hbm = BufferPool(40e9);
        en.hbm.try_reserve(static_cast<double>(rng() % 30) * 1e9);
      }
  return v;
}

std::deque<QueuedRequest> queue(size_t n) {
  std::deque<QueuedRequest> q;
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < n; ++i) {
    const int64_t tokens = 20'000 + static_cast<int64_t>(rng() % 40'000);
    q.push_back({static_cast<int64_t>(i), tokens, static_cast<double>(tokens) * 40'016.0});
  }
  return q;
}
}  // namespace

// One PE group leader's fetch over the whole waiting queue (it places until its engines pass beta).
static void BM_Algorithm1Fetch(benchmark::State& state) {
  const auto v = big_view(16, 32);
  const auto q = queue(10'000);
  size_t placed = 0;
  for (auto _ : state) {
    for (size_t g = 0; g < v.pe_groups.size(); ++g) {
      auto out = select_prefill_engines(v, v.pe_groups[g], q);
      placed += out.size();
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.counters["per_request"] =
      benchmark::Counter(static_cast<double>(placed), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Algorithm1Fetch)->Unit(benchmark::kMillisecond);

// Phase 1 routes all 10,000 requests over the DE groups; phase 2 is one group's fetch.
static void BM_DecodeSelection(benchmark::State& state) {
  const auto v = big_view(16, 32);
  const auto q = queue(10'000);
  const std::vector<int64_t> queued(v.de_groups.size(), 0);
  size_t decided = 0;
  for (auto _ : state) {
    auto routes = route_to_decode_groups(v, q, queued);
    std::vector<std::deque<QueuedRequest>> per_group(v.de_groups.size());
    for (size_t i = 0; i < q.size(); ++i) per_group[routes[i]].push_back(q[i]);
    for (size_t g = 0; g < v.de_groups.size(); ++g) {
      auto out = select_decode_engines(v, v.de_groups[g], per_group[g]);
      benchmark::DoNotOptimize(out.data());
    }
    decided += q.size();
  }
  state.counters["per_request"] =
      benchmark::Counter(static_cast<double>(decided), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DecodeSelection)->Unit(benchmark::kMillisecond);

static void BM_ReadPathChoice(benchmark::State& state) {
  const auto v = big_view(16, 32);
  PolicySpec spec;
  auto policy = make_policy(spec);
  Request r;
  std::mt19937_64 rng(5);
  for (auto _ : state) {
    r.pe = static_cast<int>(rng() % (kPrefillNodes * kGpusPerNode));
    r.de = kPrefillNodes * kGpusPerNode + static_cast<int>(rng() % (kDecodeNodes * kGpusPerNode));
    benchmark::DoNotOptimize(policy->choose_read_side(v, r));
  }
}
BENCHMARK(BM_ReadPathChoice);

BENCHMARK_MAIN();
