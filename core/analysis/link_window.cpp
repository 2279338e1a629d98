#include "core/analysis/link_window.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/analysis/csv_line.hpp"
#include "core/vocab/link_kinds.hpp"

namespace dualpath::analysis {

namespace {

struct Row {
  double time = 0, duration = 0, util = 0, kv = 0;
  std::string link, cls;
  int node = -1, gpu = -1;
};

// Calls f(row) for each data row; checks the header names the columns this reader needs.
template <class F>
void for_each_row(std::istream& in, F f) {
  std::string line;
  if (!std::getline(in, line)) return;
  const auto head = split_csv(line);
  auto col = [&](const char* name) { return csv_column(head, name, "links.csv"); };
  const size_t c_time = col("time"), c_dur = col("duration"), c_link = col("link"), c_cls = col("class"),
               c_node = col("node"), c_gpu = col("gpu"), c_util = col("utilisation"), c_kv = col("kv_utilisation");
  const size_t need = std::max({c_time, c_dur, c_link, c_cls, c_node, c_gpu, c_util, c_kv}) + 1;
  size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    const auto c = split_csv(line);
    if (c.size() < need) throw std::runtime_error("links.csv:" + std::to_string(lineno) + ": too few columns");
    try {
      Row r;
      r.time = std::stod(c[c_time]);
      r.duration = std::stod(c[c_dur]);
      r.link = c[c_link];
      r.cls = c[c_cls];
      r.node = std::stoi(c[c_node]);
      r.gpu = std::stoi(c[c_gpu]);
      r.util = c[c_util].empty() ? 0 : std::stod(c[c_util]);
      r.kv = c[c_kv].empty() ? 0 : std::stod(c[c_kv]);
      f(r);
    } catch (const std::logic_error&) {
      throw std::runtime_error("links.csv:" + std::to_string(lineno) + ": not a number");
    }
  }
}

}  // namespace

double WindowUtil::get(const std::string& key) const {
  const auto it = util.find(key);
  return it == util.end() ? 0 : it->second.mean;
}

double links_end_time(std::istream& csv) {
  double end = 0;
  for_each_row(csv, [&](const Row& r) { end = std::max(end, r.time + r.duration); });
  return end;
}

WindowUtil window_utilisation(std::istream& csv, int P, int D, int g, double t0, double t1) {
  if (!(t1 > t0)) throw std::runtime_error("empty steady-state window");
  if (P < 0 || D < 0 || g < 1) throw std::runtime_error("bad cluster shape");
  WindowUtil w;
  w.t0 = t0;
  w.t1 = t1;
  // Per (kind, link): integral of utilisation over the window.
  std::map<std::string, std::map<std::string, std::pair<double, double>>> acc;  // key -> link -> (util, kv)
  for_each_row(csv, [&](const Row& r) {
    w.end_time = std::max(w.end_time, r.time + r.duration);
    if (r.node < 0) return;  // storage servers
    const double ov = std::min(r.time + r.duration, t1) - std::max(r.time, t0);
    const std::string key = std::string(r.node < P ? "pe." : "de.") + side_kind_of(r.cls, r.link);
    auto& a = acc[key][r.link];
    if (ov > 0) a.first += r.util * ov, a.second += r.kv * ov;
  });
  const double len = t1 - t0;
  for (const char* side : {"pe", "de"}) {
    const int nodes = std::string(side) == "pe" ? P : D;
    if (nodes == 0) continue;
    for (const std::string& kind : side_kinds()) {  // the table of link kinds (core/vocab/link_kinds.hpp)
      const std::string key = std::string(side) + "." + kind;
      const int n = side_kind_links(kind, nodes, g);
      const auto it = acc.find(key);
      SideUtil u, k;
      u.min = k.min = std::numeric_limits<double>::infinity();
      int seen = 0;
      if (it != acc.end())
        for (const auto& [link, v] : it->second) {
          const double x = v.first / len, y = v.second / len;
          u.mean += x, k.mean += y, ++seen;
          u.min = std::min(u.min, x), u.max = std::max(u.max, x);
          k.min = std::min(k.min, y), k.max = std::max(k.max, y);
        }
      if (seen < n) u.min = k.min = 0;  // links without a row were idle
      if (seen > n) throw std::runtime_error("links.csv has more " + key + " links than the cluster shape allows");
      u.mean /= n, k.mean /= n;
      w.util[key] = u;
      w.kv_util[key] = k;
    }
  }
  return w;
}

}  // namespace dualpath::analysis
