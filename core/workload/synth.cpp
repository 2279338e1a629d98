#include "core/workload/synth.hpp"

#include <algorithm>
#include <cmath>

#include "core/config/input_error.hpp"
#include "core/workload/rng.hpp"

namespace dualpath {

namespace {

// Shape parameters (turns sigma/corr, round sigmas, gen spread) are fixed by hand; the five levers (turns,
// append and gen medians, append spread, first-round median) were solved by a damped Newton iteration so that
// the mean of the Table 2 statistics over 24 seeds x 500 trajectories matches the paper (docs/workload.md).
const std::vector<SynthParams>& profiles() {
  static const std::vector<SynthParams> p = {
      // name  reading  max_len  turns: median sigma corr  append: median traj round  first: median sigma
      //                                                                            gen: median traj round
      {"32k", Table2Reading::Rounds, 32768, 50.10, 0.6, 0.5, 630.41, 1.619, 1.0, 8984.9, 0.5, 146.74, 0.15, 0.6},
      {"48k", Table2Reading::Rounds, 49152, 85.72, 0.6, 0.5, 433.27, 2.000, 1.0, 9369.1, 0.5, 170.75, 0.15, 0.6},
      {"64k", Table2Reading::Rounds, 65536, 120.92, 0.6, 0.5, 383.13, 2.639, 1.0, 11247.1, 0.5, 174.75, 0.15, 0.6},
      // Same shape, levers solved against the trajectory-weighted reading (`dualpath trace calibrate
      // --reading trajectories`).
      {"32k", Table2Reading::Trajectories, 32768, 71.94, 0.6, 0.5, 227.57, 1.346, 1.0, 8405.3, 0.5, 146.22, 0.15, 0.6},
      {"48k", Table2Reading::Trajectories, 49152, 124.39, 0.6, 0.5, 129.22, 1.550, 1.0, 8693.9, 0.5, 169.99, 0.15, 0.6},
      {"64k", Table2Reading::Trajectories, 65536, 180.29, 0.6, 0.5, 81.18, 1.818, 1.0, 9970.7, 0.5, 174.06, 0.15, 0.6},
  };
  return p;
}

int64_t at_least_one(double x) { return std::max<int64_t>(1, std::llround(x)); }

}  // namespace

const std::vector<std::string>& synth_profile_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& p : profiles())
      if (p.reading == Table2Reading::Rounds) v.push_back(p.name);
    return v;
  }();
  return names;
}

SynthParams synth_profile(const std::string& name, Table2Reading reading, const std::string& where) {
  for (const auto& p : profiles())
    if (p.name == name && p.reading == reading) return p;
  std::string list;
  for (const auto& n : synth_profile_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError(where, "expected a workload profile (" + list + "), found '" + name + "'");
}

namespace {

// Stratified (Latin hypercube) draws of the per-trajectory variates. Table 2's columns are ratios of sums
// dominated by a minority of trajectories (few long, light ones; many short, heavy ones), so plain i.i.d.
// draws move the 500-trajectory means by +-5-10% from seed to seed. Within each block of kStrata consecutive
// trajectories every variate visits each of its kStrata quantile strata exactly once (in a seeded order), which
// keeps the means within ~1-2% while trajectory k still depends only on (params, seed, k).
constexpr uint64_t kStrata = 100;
constexpr double kZMax = 2.33;
enum Variate : uint64_t { kTurns, kAppend, kGen, kVariates };

double stratified_normal(uint64_t seed, uint64_t index, Variate v, workload::Rng& rng) {
  const uint64_t block = index / kStrata;
  workload::Rng perm_rng(workload::mix_seed(seed ^ 0x5354524154554dULL, block * kVariates + v));
  uint64_t perm[kStrata];
  for (uint64_t i = 0; i < kStrata; ++i) perm[i] = i;
  for (uint64_t i = kStrata - 1; i > 0; --i) std::swap(perm[i], perm[perm_rng.below(i + 1)]);
  const double u = (static_cast<double>(perm[index % kStrata]) + rng.uniform_pos() * 0.999999) / kStrata;
  // Quantiles beyond +-2.33 sigma (outer 1% strata) are clamped: the few extreme trajectories there
  // (hundreds of 1-token appends, or one huge dump) would otherwise dominate request-weighted means.
  return std::clamp(workload::normal_quantile(std::clamp(u, 1e-12, 1 - 1e-12)), -kZMax, kZMax);
}

}  // namespace

Trajectory generate_trajectory(const SynthParams& p, uint64_t seed, uint64_t index) {
  workload::Rng rng(workload::mix_seed(seed, index));
  Trajectory t;
  t.id = p.name + "-" + std::to_string(index);
  // Natural length and append scale are negatively correlated (see turns_append_corr).
  const double z_append = stratified_normal(seed, index, kAppend, rng);
  const double z_turns = -p.turns_append_corr * z_append +
                         std::sqrt(1 - p.turns_append_corr * p.turns_append_corr) *
                             stratified_normal(seed, index, kTurns, rng);
  const int64_t natural_turns = at_least_one(p.turns_median * std::exp(p.turns_sigma * z_turns));
  // Caps keep round 0 inside max_len (every trajectory has at least one round) and bound the tail.
  const double append_scale = std::min(p.append_median * std::exp(p.append_traj_sigma * z_append),
                                       static_cast<double>(p.max_len) / 16);
  const double gen_scale = p.gen_median * std::exp(p.gen_traj_sigma * stratified_normal(seed, index, kGen, rng));
  const int64_t gen_cap = p.max_len / 8;
  int64_t context = 0;
  for (int64_t i = 0; i < natural_turns; ++i) {
    const double raw_append = i == 0 ? std::min(rng.lognormal_median(p.first_median, p.first_sigma),
                                                static_cast<double>(p.max_len) / 4)
                                     : rng.lognormal_mean(append_scale, p.append_round_sigma);
    const int64_t append = at_least_one(raw_append);
    const int64_t gen = std::min(gen_cap, at_least_one(rng.lognormal_mean(gen_scale, p.gen_round_sigma)));
    if (context + append + gen > p.max_len) break;  // truncation at MaxLen, as in the paper's datasets
    t.rounds.push_back(Round{append, gen, 0.0});
    context += append + gen;
  }
  return t;
}

Trace generate_trace(const SynthParams& params, int n, uint64_t seed) {
  Trace trace;
  trace.trajectories.reserve(static_cast<size_t>(std::max(0, n)));
  for (int k = 0; k < n; ++k) trace.trajectories.push_back(generate_trajectory(params, seed, static_cast<uint64_t>(k)));
  return trace;
}

}  // namespace dualpath
