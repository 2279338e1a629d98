// Link utilisation counter tracks of the trace: links.csv samples per link, merged into coarser intervals until
// the points fit the counter limit.
#include <algorithm>
#include <cmath>

#include "core/metrics/trace_writer.hpp"
#include "core/vocab/link_kinds.hpp"

namespace dualpath::trace_detail {

void write_link_counters(Out& out, const TraceInput& in, const TraceOptions& opt, TraceEventStats& st) {
  struct Bucket {
    int64_t index;
    double model, kv;  // utilisation x seconds
  };
  const double iv = in.sample_interval > 0 ? in.sample_interval : 1.0;
  auto shown = [&](const TraceLink& l) { return l.kind != LinkClass::Storage && l.node >= 0; };
  size_t n = 0;
  for (const auto& s : in.samples)
    if (s.link >= 0 && static_cast<size_t>(s.link) < in.links.size() && shown(in.links[static_cast<size_t>(s.link)]))
      ++n;
  int64_t merge = 1;
  if (opt.counter_limit >= 0 && static_cast<int64_t>(n) > opt.counter_limit)
    merge = (static_cast<int64_t>(n) + std::max<int64_t>(1, opt.counter_limit) - 1) / std::max<int64_t>(1, opt.counter_limit);
  std::vector<std::vector<Bucket>> per_link;
  auto bucketize = [&] {
    per_link.assign(in.links.size(), {});
    for (const auto& s : in.samples) {
      if (s.link < 0 || static_cast<size_t>(s.link) >= in.links.size()) continue;
      if (!shown(in.links[static_cast<size_t>(s.link)])) continue;
      const auto b = static_cast<int64_t>(std::floor(s.time / iv + 1e-6)) / merge;
      auto& v = per_link[static_cast<size_t>(s.link)];
      if (v.empty() || v.back().index != b) v.push_back({b, 0, 0});
      v.back().model += s.model_utilisation * s.duration;
      v.back().kv += s.kv_utilisation * s.duration;
    }
    int64_t points = 0;
    for (const auto& v : per_link)
      for (size_t i = 0; i < v.size(); ++i) points += (i + 1 < v.size() && v[i + 1].index == v[i].index + 1) ? 1 : 2;
    return points;
  };
  // Coarser intervals until the points fit; a link busy at all still needs two points, so stop when merging
  // no longer helps and keep the finer interval.
  int64_t prev_points = -1;
  while (true) {
    const int64_t points = bucketize();
    if (opt.counter_limit < 0 || points <= opt.counter_limit) break;
    if (prev_points >= 0 && points >= prev_points) {
      merge /= 2;
      bucketize();
      break;
    }
    prev_points = points;
    merge *= 2;
  }
  const double width = iv * static_cast<double>(merge);
  st.counter_interval = width;
  for (size_t li = 0; li < per_link.size(); ++li) {
    const auto& l = in.links[li];
    const bool cnic = link_kind(l.kind).kv_counter;  // KV and model traffic apart
    const double gbps = l.bandwidth / 1e9;
    const auto& v = per_link[li];
    auto emit = [&](double t, double model, double kv) {
      std::string& s = out.begin();
      s += "\"ph\":\"C\",\"pid\":" + std::to_string(node_pid(l.node)) + ",\"ts\":";
      append_num(s, t * kUs);
      s += ",\"name\":";
      append_str(s, l.name);
      if (cnic) {
        s += ",\"args\":{\"kv GB/s\":";
        append_num(s, kv * gbps, 4);
        s += ",\"model GB/s\":";
        append_num(s, model * gbps, 4);
        s += '}';
      } else {
        s += ",\"args\":{\"GB/s\":";
        append_num(s, (kv + model) * gbps, 4);
        s += '}';
      }
      out.done();
      ++st.counter_points;
    };
    for (size_t i = 0; i < v.size(); ++i) {
      const double t0 = static_cast<double>(v[i].index) * width;
      const double t1 = std::max(t0, std::min(in.end_time > 0 ? in.end_time : t0 + width, t0 + width));
      const double len = t1 > t0 ? t1 - t0 : width;
      emit(t0, v[i].model / len, v[i].kv / len);
      if (!(i + 1 < v.size() && v[i + 1].index == v[i].index + 1)) emit(t1 > t0 ? t1 : t0 + width, 0, 0);
    }
  }
}

}  // namespace dualpath::trace_detail
