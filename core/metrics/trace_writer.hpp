// The Perfetto/Chrome trace-event writer's parts with one job each (core/metrics/trace_events.cpp assembles them):
// JSON event output, tracks (threads) and lanes, link counter tracks, flow arrows, track names and the trailer.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/metrics/trace_events.hpp"

namespace dualpath::trace_detail {

inline constexpr double kUs = 1e6;          // trace timestamps are microseconds
inline constexpr double kNudgeUs = 0.001;   // 1 ns: keeps the points of one flow strictly ordered

// Where a slice landed, so flow arrows can bind to it.
struct SlicePos {
  int pid = -1, tid = -1;
  double start = 0, end = 0;  // seconds
  bool valid() const { return pid >= 0; }
};

class Out {
 public:
  explicit Out(std::ostream& os) : os_(os) {}
  ~Out() = default;
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;

  // Starts an event object; the caller appends fields (without braces) to the returned buffer, then calls done().
  std::string& begin() {
    buf_ += first_ ? "\n{" : ",\n{";
    first_ = false;
    ++events_;
    return buf_;
  }
  void done() {
    buf_ += '}';
    if (buf_.size() > (1u << 20)) flush();
  }
  void raw(const std::string& s) {
    buf_ += s;
    flush();
  }
  void flush() {
    os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    bytes_ += buf_.size();
    buf_.clear();
  }
  int64_t events() const { return events_; }
  uint64_t bytes() const { return bytes_; }

 private:
  std::ostream& os_;
  std::string buf_;
  bool first_ = true;
  int64_t events_ = 0;
  uint64_t bytes_ = 0;
};

// Threads (tracks) by (pid, name), with their sort order; metadata is written at the end.
class Threads {
 public:
  int get(int pid, const std::string& name, int sort) {
    auto [it, fresh] = ids_.try_emplace({pid, name}, 0);
    if (fresh) {
      it->second = ++next_[pid];
      meta_.push_back({pid, it->second, name, sort});
    }
    return it->second;
  }
  struct Meta {
    int pid, tid;
    std::string name;
    int sort;
  };
  const std::vector<Meta>& meta() const { return meta_; }

 private:
  std::map<std::pair<int, std::string>, int> ids_;
  std::map<int, int> next_;
  std::vector<Meta> meta_;
};

// Greedy interval partitioning into lanes (one thread per lane): slices must be placed in start order.
class Lanes {
 public:
  Lanes(int pid, std::string prefix, int sort_base) : pid_(pid), prefix_(std::move(prefix)), sort_(sort_base) {}
  SlicePos place(Threads& threads, double start, double end) {
    size_t lane = 0;
    while (lane < ends_.size() && ends_[lane] > start) ++lane;
    if (lane == ends_.size()) ends_.push_back(end);
    else ends_[lane] = end;
    const int tid = threads.get(pid_, prefix_ + " #" + std::to_string(lane), sort_ + static_cast<int>(lane));
    return {pid_, tid, start, end};
  }

 private:
  int pid_;
  std::string prefix_;
  int sort_;
  std::vector<double> ends_;
};


// Process ids: one per node (node n is pid n + 1), then the traced agents' requests.
inline int node_pid(int node) { return node + 1; }
inline int requests_pid(int nodes) { return nodes + 1; }

// Fixed-point with at most `decimals` decimals, trailing zeros trimmed (JSON numbers, no exponent).
void append_num(std::string& s, double v, int decimals = 3);
// A JSON string literal.
void append_str(std::string& s, const std::string& v);

// Link utilisation counter tracks (links.csv samples merged to at most opt.counter_limit points); sets
// st.counter_interval and st.counter_points.
void write_link_counters(Out& out, const TraceInput& in, const TraceOptions& opt, TraceEventStats& st);
// The run's faults: one slice each on a "faults" track (sorted first) of the node it hit, or of every node.
void write_fault_slices(Out& out, Threads& threads, const TraceInput& in, int nodes);
// One request's flow arrow through the slices it visited (points in time order); returns the events written.
int64_t write_flow(Out& out, int64_t id, const std::vector<std::pair<SlicePos, double>>& pts);
// Process and thread names and sort order: node processes, the traced-requests process, every track.
void write_track_names(Out& out, const Threads& threads, int nodes, int prefill_nodes, bool requests_track);
// The end of the event array and the otherData object.
void write_trailer(Out& out, const TraceInput& in, const TraceOptions& opt, const TraceEventStats& st);

}  // namespace dualpath::trace_detail
