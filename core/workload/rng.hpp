// Portable deterministic random numbers for the workload module.
// std::*_distribution are implementation-defined (libstdc++ and libc++ give different streams), so every
// distribution here is built from raw std::mt19937_64 outputs with our own code: the same seed gives the
// same trace on every platform (up to libm's last-ulp differences in log/cos, which integer rounding hides).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace dualpath::workload {

// SplitMix64 finaliser: turns (seed, stream index) into well-mixed, independent engine seeds, so that
// trajectory k of a generated trace does not depend on how many trajectories were asked for.
inline uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.2e-9), for
// stratified sampling. p must be in (0, 1).
inline double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : eng_(seed) {}

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(eng_() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1]: safe to take the log of.
  double uniform_pos() { return 1.0 - uniform(); }
  // Standard normal by Box-Muller (one variate per call; the twin is discarded to keep the stream simple).
  double normal() {
    const double u1 = uniform_pos(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Lognormal given its median and the sigma of its log.
  double lognormal_median(double median, double sigma) { return median * std::exp(sigma * normal()); }
  // Lognormal given its mean (not median) and the sigma of its log.
  double lognormal_mean(double mean, double sigma) { return mean * std::exp(sigma * normal() - 0.5 * sigma * sigma); }
  // Exponential with the given rate (events per unit).
  double exponential(double rate) { return -std::log(uniform_pos()) / rate; }
  // Uniform integer in [0, n) by rejection (no modulo bias); n > 0.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = eng_(); while (x >= limit);
    return x % n;
  }

 private:
  std::mt19937_64 eng_;
};

}  // namespace dualpath::workload
