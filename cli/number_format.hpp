// Numbers as the verbs' tables print them.
#pragma once

#include <iomanip>
#include <sstream>
#include <string>

namespace dualpath::cli {

// `v` with `prec` digits after the point ("12.35").
inline std::string fixed(double v, int prec = 2) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

}  // namespace dualpath::cli
