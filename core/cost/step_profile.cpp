#include "core/cost/step_profile.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace dualpath {
namespace {

std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// The segment [i, i + 1] of increasing points `x` that holds v and v's weight on x[i + 1]; below x[0] the first
// point (weight 0 on segment 0); beyond the last point a ProfileRangeError.
std::pair<size_t, double> locate(const std::vector<double>& x, double v, const std::string& file,
                                 const std::string& what, const std::string& axis) {
  if (x.size() == 1) {
    if (v > x[0] * (1 + 1e-12)) throw ProfileRangeError(file, what + ": " + axis + " " + num(v) + " is beyond the profile's only point " + num(x[0]));
    return {0, 0.0};
  }
  if (v <= x.front()) return {0, 0.0};
  if (v > x.back() * (1 + 1e-12))
    throw ProfileRangeError(file, what + ": " + axis + " " + num(v) + " is outside the measured range " + num(x.front()) +
                                      ".." + num(x.back()) + " (refused: the profile has no data there)");
  const size_t hi = static_cast<size_t>(std::lower_bound(x.begin(), x.end(), v) - x.begin());
  const size_t i = std::min(hi == 0 ? 0 : hi - 1, x.size() - 2);
  return {i, std::clamp((v - x[i]) / (x[i + 1] - x[i]), 0.0, 1.0)};
}

}  // namespace

double profile_at(const ProfileAxisTable& t, double v, const std::string& file, const std::string& what) {
  const auto [i, w] = locate(t.x, v, file, what, t.x_name);
  return t.x.size() == 1 ? t.y[0] : t.y[i] + w * (t.y[i + 1] - t.y[i]);
}

double profile_at(const ProfileGrid& g, double va, double vb, const std::string& file,
                  const std::string& what) {
  const auto [i, u] = locate(g.a, va, file, what, g.a_name);
  const auto [j, w] = locate(g.b, vb, file, what, g.b_name);
  auto v = [&](size_t r, size_t c) {
    const size_t cc = std::min(c, g.b.size() - 1);
    const double x = g.values[std::min(r, g.a.size() - 1)][cc];
    return g.per_b ? x / g.b[cc] : x;
  };
  const double lo = v(i, j) + w * (v(i, j + 1) - v(i, j));
  const double hi = v(i + 1, j) + w * (v(i + 1, j + 1) - v(i + 1, j));
  const double at = lo + u * (hi - lo);
  return g.per_b ? at * vb : at;
}

}  // namespace dualpath
