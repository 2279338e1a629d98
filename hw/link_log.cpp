#include "hw/link_log.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

namespace dualpath::hw {

LinkLog::LinkLog(int nodes, int gpn, double snic_rate, double cnic_bw, double interval)
    : nodes_(nodes), gpn_(gpn), interval_(interval > 0 ? interval : 1.0) {
  for (int n = 0; n < nodes; ++n) {
    links_.push_back({"snic" + std::to_string(n) + "_down", "snic_down", n, -1, snic_rate, {}, {}});
    links_.push_back({"snic" + std::to_string(n) + "_up", "snic_up", n, -1, snic_rate, {}, {}});
  }
  for (int g = 0; g < nodes * gpn; ++g) {
    links_.push_back({"cnic" + std::to_string(g) + "_rd", "cnic_rd", g / gpn, g, cnic_bw, {}, {}});
    links_.push_back({"cnic" + std::to_string(g) + "_wr", "cnic_wr", g / gpn, g, cnic_bw, {}, {}});
  }
}

void LinkLog::add(Link& l, TrafficClass cls, double start, double end, double bytes) {
  if (!(bytes > 0)) return;
  auto& bins = cls == TrafficClass::Model ? l.model : l.kv;
  if (!(end > start)) start = end;  // an instant: all bytes in its window
  const size_t last = static_cast<size_t>(std::max(0.0, end) / interval_);
  if (l.model.size() <= last) l.model.resize(last + 1, 0), l.kv.resize(last + 1, 0);
  if (end == start) {
    bins[last] += bytes;
    return;
  }
  const double rate = bytes / (end - start);
  for (size_t w = static_cast<size_t>(std::max(0.0, start) / interval_); w <= last; ++w) {
    const double a = std::max(start, static_cast<double>(w) * interval_);
    const double b = std::min(end, static_cast<double>(w + 1) * interval_);
    if (b > a) bins[w] += rate * (b - a);
  }
}

void LinkLog::storage(int node, bool read, double start, double end, double bytes) {
  Link& l = links_.at(static_cast<size_t>(2 * node + (read ? 0 : 1)));
  // Paced FIFO: the operation's own bytes moved during the last bytes / rate seconds before it completed.
  const double busy = l.capacity > 0 ? bytes / l.capacity : 0;
  add(l, TrafficClass::Kv, std::max(start, end - busy), end, bytes);
}

void LinkLog::transfer(int src, int dst, TrafficClass cls, double start, double end, double bytes) {
  const size_t base = static_cast<size_t>(2 * nodes_);
  add(links_.at(base + 2 * static_cast<size_t>(src)), cls, start, end, bytes);
  add(links_.at(base + 2 * static_cast<size_t>(dst) + 1), cls, start, end, bytes);
}

void LinkLog::write_csv(const std::string& path, double span) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "time,duration,link,class,node,gpu,utilisation,model_utilisation,kv_utilisation\n";
  const size_t windows = static_cast<size_t>(std::ceil(std::max(0.0, span) / interval_));
  for (size_t w = 0; w < windows; ++w) {
    const double t = static_cast<double>(w) * interval_;
    const double dur = std::min(interval_, span - t);
    if (!(dur > 0)) break;
    for (const auto& l : links_) {
      const double m = w < l.model.size() ? l.model[w] : 0, k = w < l.kv.size() ? l.kv[w] : 0;
      if (m + k <= 0 || !(l.capacity > 0)) continue;
      const double cap = l.capacity * dur;
      out << t << ',' << dur << ',' << l.name << ',' << l.cls << ',' << l.node << ',' << l.gpu << ','
          << (m + k) / cap << ',' << m / cap << ',' << k / cap << '\n';
    }
  }
}

}  // namespace dualpath::hw
