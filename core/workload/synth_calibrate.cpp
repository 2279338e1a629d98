#include "core/workload/synth_calibrate.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/workload/trace_stats.hpp"

namespace dualpath {

namespace {

constexpr int kLevers = 5;
using Vec = std::array<double, kLevers>;

double* lever(SynthParams& p, int i) {
  switch (i) {
    case 0: return &p.turns_median;
    case 1: return &p.append_median;
    case 2: return &p.append_traj_sigma;
    case 3: return &p.first_median;
    default: return &p.gen_median;
  }
}

Vec log_levers(SynthParams p) {
  Vec v{};
  for (int i = 0; i < kLevers; ++i) v[i] = std::log(*lever(p, i));
  return v;
}

SynthParams with_levers(SynthParams p, const Vec& logs) {
  for (int i = 0; i < kLevers; ++i) *lever(p, i) = std::exp(logs[i]);
  return p;
}

Vec log_errors(const Table2Values& v, const Table2Row& t) {
  Vec e{};
  for (int i = 0; i < kLevers; ++i) e[i] = std::log(v[i] / t.values[i]);
  return e;
}

double worst(const Table2Values& v, const Table2Row& t) {
  double w = 0;
  for (int i = 0; i < kTable2Columns; ++i) w = std::max(w, std::abs(v[i] / t.values[i] - 1));
  return w;
}

// Solves J x = b by Gaussian elimination with partial pivoting; false if J is singular.
bool solve(std::array<Vec, kLevers> j, Vec b, Vec& x) {
  for (int c = 0; c < kLevers; ++c) {
    int piv = c;
    for (int r = c + 1; r < kLevers; ++r)
      if (std::abs(j[r][c]) > std::abs(j[piv][c])) piv = r;
    if (std::abs(j[piv][c]) < 1e-12) return false;
    std::swap(j[c], j[piv]);
    std::swap(b[c], b[piv]);
    for (int r = c + 1; r < kLevers; ++r) {
      const double f = j[r][c] / j[c][c];
      for (int k = c; k < kLevers; ++k) j[r][k] -= f * j[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int r = kLevers - 1; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < kLevers; ++k) s -= j[r][k] * x[k];
    x[r] = s / j[r][r];
  }
  return true;
}

}  // namespace

Table2Values mean_columns(const SynthParams& params, Table2Reading reading, const CalibrationOptions& o) {
  Table2Values sum{};
  for (int seed = 1; seed <= o.seeds; ++seed) {
    const Table2Values v = table2_columns(
        compute_stats(generate_trace(params, o.trajectories, static_cast<uint64_t>(seed)), "calibration"), reading);
    for (int i = 0; i < kTable2Columns; ++i) sum[i] += v[i];
  }
  for (double& x : sum) x /= o.seeds;
  return sum;
}

CalibrationResult calibrate_synth(const SynthParams& start, Table2Reading reading, const Table2Row& target,
                                  const CalibrationOptions& o) {
  CalibrationResult res;
  Vec x = log_levers(start);
  SynthParams p = start;
  Table2Values v = mean_columns(p, reading, o);
  res.params = p;
  res.values = v;
  res.worst_error = worst(v, target);
  constexpr double kProbe = 0.02;     // forward-difference step in log space
  constexpr double kMaxStep = 0.30;   // largest change of one lever's log per iteration
  for (int it = 0; it < o.max_iterations && res.worst_error > o.tolerance; ++it) {
    const Vec f = log_errors(v, target);
    std::array<Vec, kLevers> jac{};
    for (int k = 0; k < kLevers; ++k) {
      Vec xk = x;
      xk[k] += kProbe;
      const Vec fk = log_errors(mean_columns(with_levers(start, xk), reading, o), target);
      for (int r = 0; r < kLevers; ++r) jac[r][k] = (fk[r] - f[r]) / kProbe;
    }
    Vec dx{};
    Vec minus_f{};
    for (int r = 0; r < kLevers; ++r) minus_f[r] = -f[r];
    if (!solve(jac, minus_f, dx)) break;
    double biggest = 0;
    for (double d : dx) biggest = std::max(biggest, std::abs(d));
    const double scale = biggest > kMaxStep ? kMaxStep / biggest : 1.0;
    // Backtrack: halve the step until the worst error does not grow (at most 4 halvings).
    double err = 0;
    for (int h = 0; h < 5; ++h) {
      Vec xn = x;
      for (int k = 0; k < kLevers; ++k) xn[k] += scale * std::pow(0.5, h) * dx[k];
      const SynthParams pn = with_levers(start, xn);
      const Table2Values vn = mean_columns(pn, reading, o);
      err = worst(vn, target);
      if (err < res.worst_error || h == 4) {
        x = xn;
        p = pn;
        v = vn;
        break;
      }
    }
    ++res.iterations;
    if (err < res.worst_error) {
      res.params = p;
      res.values = v;
      res.worst_error = err;
    }
  }
  return res;
}

}  // namespace dualpath
