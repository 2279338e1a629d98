#include "hw/link_log.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace dualpath::hw {

LinkLog::LinkLog(int nodes, int gpn, double snic_rate, double cnic_bw, double interval)
    : nodes_(nodes), interval_(interval > 0 ? interval : 1.0) {
  auto link = [](std::string name, LinkClass cls, double bw, int node, int gpu) {
    LinkInfo info;
    info.name = std::move(name);
    info.cls = cls;
    info.bandwidth = bw;
    info.node = node;
    info.gpu = gpu;
    return Link{std::move(info), {}, {}};
  };
  for (int n = 0; n < nodes; ++n) {
    links_.push_back(link("snic" + std::to_string(n) + "_down", LinkClass::SnicDown, snic_rate, n, -1));
    links_.push_back(link("snic" + std::to_string(n) + "_up", LinkClass::SnicUp, snic_rate, n, -1));
  }
  for (int g = 0; g < nodes * gpn; ++g) {
    links_.push_back(link("cnic" + std::to_string(g) + "_rd", LinkClass::CnicRd, cnic_bw, g / gpn, g));
    links_.push_back(link("cnic" + std::to_string(g) + "_wr", LinkClass::CnicWr, cnic_bw, g / gpn, g));
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
  // Paced FIFO (SnicPacer): an operation's bytes leave at the link's rate once it is issued and the operation
  // before it has left, so they are placed there, not before the completion: a completion the event loop delivers
  // late would otherwise overlap the next operation's bytes and show the link above its rate. An operation that
  // completed before that place could end (completions out of order) keeps the last bytes / rate seconds before
  // its completion.
  const double busy = l.info.bandwidth > 0 ? bytes / l.info.bandwidth : 0;
  double from = std::max(start, l.paced_until), to = from + busy;
  if (to > end) from = std::max(start, end - busy), to = end;
  l.paced_until = std::max(l.paced_until, to);
  add(l, TrafficClass::Kv, from, to, bytes);
}

void LinkLog::transfer(int src, int dst, TrafficClass cls, double start, double end, double bytes) {
  const size_t base = static_cast<size_t>(2 * nodes_);
  add(links_.at(base + 2 * static_cast<size_t>(src)), cls, start, end, bytes);
  add(links_.at(base + 2 * static_cast<size_t>(dst) + 1), cls, start, end, bytes);
}

LinkReport LinkLog::report(double span) const {
  LinkReport rep;
  rep.interval = interval_;
  rep.end_time = std::max(0.0, span);
  for (const auto& l : links_) {
    LinkInfo info = l.info;
    for (double b : l.model) info.bytes_model += b;
    for (double b : l.kv) info.bytes_kv += b;
    const double cap = info.bandwidth * rep.end_time;
    info.mean_utilisation = cap > 0 ? info.bytes() / cap : 0;
    rep.links.push_back(std::move(info));
  }
  const size_t windows = static_cast<size_t>(std::ceil(rep.end_time / interval_));
  for (size_t w = 0; w < windows; ++w) {
    const double t = static_cast<double>(w) * interval_;
    const double dur = std::min(interval_, rep.end_time - t);
    if (!(dur > 0)) break;
    for (size_t i = 0; i < links_.size(); ++i) {
      const auto& l = links_[i];
      const double m = w < l.model.size() ? l.model[w] : 0, k = w < l.kv.size() ? l.kv[w] : 0;
      if (m + k <= 0 || !(l.info.bandwidth > 0)) continue;
      const double cap = l.info.bandwidth * dur;
      rep.samples.push_back(LinkSample{t, dur, static_cast<int>(i), m / cap, k / cap});
    }
  }
  return rep;
}

}  // namespace dualpath::hw
