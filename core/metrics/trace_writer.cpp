#include "core/metrics/trace_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dualpath::trace_detail {

// Fixed-point with at most `decimals` decimals, trailing zeros trimmed (JSON numbers, no exponent).
void append_num(std::string& s, double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  if (n <= 0 || n >= static_cast<int>(sizeof buf)) {
    s += '0';
    return;
  }
  if (decimals > 0) {
    while (n > 1 && buf[n - 1] == '0') --n;
    if (buf[n - 1] == '.') --n;
  }
  if (n == 2 && buf[0] == '-' && buf[1] == '0') {
    s += '0';
    return;
  }
  s.append(buf, static_cast<size_t>(n));
}

void append_str(std::string& s, const std::string& v) {
  s += '"';
  for (const char c : v) {
    switch (c) {
      case '"': s += "\\\""; break;
      case '\\': s += "\\\\"; break;
      case '\n': s += "\\n"; break;
      case '\t': s += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          s += buf;
        } else {
          s += c;
        }
    }
  }
  s += '"';
}

void write_fault_slices(Out& out, Threads& threads, const TraceInput& in, int nodes) {
  for (const TraceFault& f : in.faults) {
    for (int n = 0; n < nodes; ++n) {
      if (f.node >= 0 && f.node != n) continue;
      const double end = f.end >= 0 ? f.end : in.end_time;
      std::string& s = out.begin();
      s += "\"ph\":\"X\",\"pid\":" + std::to_string(node_pid(n)) + ",\"tid\":" +
           std::to_string(threads.get(node_pid(n), "faults", -1)) + ",\"ts\":";
      append_num(s, f.start * kUs);
      s += ",\"dur\":";
      append_num(s, std::max(0.0, end - f.start) * kUs);
      s += ",\"name\":";
      append_str(s, f.name);
      s += ",\"cat\":\"fault\"";
      out.done();
    }
  }
}

int64_t write_flow(Out& out, int64_t id, const std::vector<std::pair<SlicePos, double>>& pts) {
  if (pts.size() < 2) return 0;
  int64_t n = 0;
  double prev = -1e300;
  for (size_t i = 0; i < pts.size(); ++i) {
    double ts = std::max(pts[i].second * kUs, prev + kNudgeUs);
    prev = ts;
    const char* ph = i == 0 ? "s" : i + 1 == pts.size() ? "f" : "t";
    std::string& s = out.begin();
    s += "\"ph\":\"";
    s += ph;
    s += "\",\"id\":" + std::to_string(id) + ",\"pid\":" + std::to_string(pts[i].first.pid) +
         ",\"tid\":" + std::to_string(pts[i].first.tid) + ",\"ts\":";
    append_num(s, ts);
    s += ",\"name\":\"request\",\"cat\":\"request\"";
    if (i > 0) s += ",\"bp\":\"e\"";
    out.done();
    ++n;
  }
  return n;
}

void write_track_names(Out& out, const Threads& threads, int nodes, int prefill_nodes, bool requests_track) {
  auto meta = [&](int pid, int tid, const char* what, const std::string& key, const std::string& value, bool str) {
    std::string& s = out.begin();
    s += "\"ph\":\"M\",\"pid\":" + std::to_string(pid);
    if (tid >= 0) s += ",\"tid\":" + std::to_string(tid);
    s += ",\"name\":\"";
    s += what;
    s += "\",\"args\":{\"" + key + "\":";
    if (str) append_str(s, value);
    else s += value;
    s += '}';
    out.done();
  };
  for (int node = 0; node < nodes; ++node) {
    const bool prefill = node < prefill_nodes;
    meta(node_pid(node), -1, "process_name", "name",
         "node " + std::to_string(node) + (prefill ? " (prefill)" : " (decode)"), true);
    meta(node_pid(node), -1, "process_sort_index", "sort_index", std::to_string(node + 1), false);
  }
  if (requests_track) {
    meta(requests_pid(nodes), -1, "process_name", "name", "requests (traced agents)", true);
    meta(requests_pid(nodes), -1, "process_sort_index", "sort_index", "0", false);
  }
  for (const auto& m : threads.meta()) {
    meta(m.pid, m.tid, "thread_name", "name", m.name, true);
    meta(m.pid, m.tid, "thread_sort_index", "sort_index", std::to_string(m.sort), false);
  }
}

void write_trailer(Out& out, const TraceInput& in, const TraceOptions& opt, const TraceEventStats& st) {
  std::string tail = "\n],\"otherData\":{\"title\":";
  append_str(tail, in.title);
  tail += ",\"generator\":\"dualpath\",\"flow_requests\":";
  tail += std::to_string(opt.flow_requests);
  tail += ",\"detail_limit\":" + std::to_string(opt.detail_limit);
  tail += ",\"counter_limit\":" + std::to_string(opt.counter_limit);
  tail += ",\"counter_interval_s\":";
  append_num(tail, st.counter_interval, 6);
  tail += ",\"folded_forwards\":" + std::to_string(st.folded_forwards);
  tail += ",\"traced_requests\":" + std::to_string(st.traced_requests);
  tail += "}}\n";
  out.raw(tail);
}

}  // namespace dualpath::trace_detail
