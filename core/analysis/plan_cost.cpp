#include "core/analysis/plan_cost.hpp"

#include "core/config/command_values.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace dualpath::analysis {
namespace {

double parse_price(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0) || v > 1e6)
    throw std::invalid_argument("expected dollars per hour in (0, 1000000]: " + what + ", found \"" + text + "\"");
  return v;
}

}  // namespace

Prices parse_prices(const std::string& text, bool per_gpu) {
  Prices p;
  p.per_gpu = per_gpu;
  const std::string unit = per_gpu ? "a GPU's price" : "a node's price";
  if (text.find('=') == std::string::npos) {
    p.every = parse_price(text, unit + " (e.g. " + (per_gpu ? "12.29" : "98.32") +
                                    ") or TOPOLOGY=PRICE,... (e.g. hopper-8gpu-80g=98.32,h20-8gpu-96g=40)");
    return p;
  }
  for (const std::string& item : split_commas(text)) {  // an empty item (a trailing comma) is refused below
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("expected TOPOLOGY=PRICE items separated by commas (a topology's \"name\"), found \"" +
                                  item + "\"");
    const std::string name = item.substr(0, eq);
    if (p.by_topology.count(name)) throw std::invalid_argument("topology \"" + name + "\" is priced twice");
    p.by_topology[name] = parse_price(item.substr(eq + 1), unit + " for " + name);
  }
  if (p.by_topology.empty()) throw std::invalid_argument("expected TOPOLOGY=PRICE items, found \"" + text + "\"");
  return p;
}

}  // namespace dualpath::analysis
