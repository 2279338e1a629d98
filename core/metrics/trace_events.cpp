#include "core/metrics/trace_events.hpp"
#include "core/metrics/trace_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace dualpath {

using namespace trace_detail;

namespace {

std::string gpu_range(const std::vector<int>& gpus) {
  if (gpus.empty()) return "?";
  if (gpus.size() == 1) return "GPU " + std::to_string(gpus.front());
  return "GPUs " + std::to_string(gpus.front()) + "-" + std::to_string(gpus.back());
}

class TraceBuilder {
 public:
  TraceBuilder(std::ostream& os, const TraceInput& in, const TraceOptions& opt) : out_(os), in_(in), opt_(opt) {
    if (!in.log || !in.requests) throw std::invalid_argument("trace: activity log and requests are required");
    log_ = in.log;
    reqs_ = in.requests;
    nodes_ = in.prefill_nodes + in.decode_nodes;
    gpn_ = std::max(1, in.gpus_per_node);
  }

  TraceEventStats run() {
    out_.raw("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    select_traced();
    plan();
    forwards();
    transfers();
    reads();
    handoffs();
    decode_chunks();
    agents();
    write_fault_slices(out_, threads_, in_, nodes_);
    write_link_counters(out_, in_, opt_, st_);
    flows();
    write_track_names(out_, threads_, nodes_, in_.prefill_nodes, !shown_agents_.empty());
    write_trailer(out_, in_, opt_, st_);
    st_.events = out_.events();
    st_.bytes = out_.bytes();
    return st_;
  }

 private:
  // --- helpers -------------------------------------------------------------------------------------------------
  int requests_pid() const { return trace_detail::requests_pid(nodes_); }
  int node_of(int gpu) const { return gpu / gpn_; }
  const Request& req(int64_t id) const { return (*reqs_)[static_cast<size_t>(id)]; }
  bool traced(int64_t id) const { return id >= 0 && static_cast<size_t>(id) < traced_.size() && traced_[static_cast<size_t>(id)]; }
  double end_or_run_end(double t) const { return t >= 0 ? t : in_.end_time; }

  std::string unit_name(bool prefill, size_t unit) const {
    const auto& units = prefill ? in_.pe_units : in_.de_units;
    const std::string kind = prefill ? "prefill" : "decode";
    if (unit >= units.size()) return kind + " unit " + std::to_string(unit);
    const auto& gpus = units[unit];
    if (gpus.size() == 1) return kind + " engine " + std::to_string(gpus.front());
    return kind + " unit " + std::to_string(unit) + " (EP" + std::to_string(gpus.size()) + ", " + gpu_range(gpus) + ")";
  }

  // ph X with the common fields; returns the buffer so callers can add "args" before done().
  std::string& slice(const SlicePos& at, const char* name, const char* cat) {
    std::string& s = out_.begin();
    s += "\"ph\":\"X\",\"pid\":";
    s += std::to_string(at.pid);
    s += ",\"tid\":";
    s += std::to_string(at.tid);
    s += ",\"ts\":";
    append_num(s, at.start * kUs);
    s += ",\"dur\":";
    append_num(s, std::max(0.0, at.end - at.start) * kUs);
    s += ",\"name\":";
    append_str(s, name);
    s += ",\"cat\":\"";
    s += cat;
    s += '"';
    return s;
  }

  // The GPU whose memory holds a request's hit KV (a DE-side read's DE node DRAM; a de-hbm hit's decode GPU HBM).
  static int source_gpu(const Request& r) { return hit_from_de(r.read.side()) ? r.de : r.pe; }
  // A KV transfer by (forward, load, source, destination) with the buffer side as a node: loads come from a
  // node's buffer into a PE GPU, sends go from a PE GPU to a node's buffer.
  std::tuple<int, bool, int, int> pair_key(const KvTransferRecord& t) const {
    return t.load ? std::tuple{t.forward, true, node_of(t.src_gpu), t.dst_gpu}
                  : std::tuple{t.forward, false, t.src_gpu, node_of(t.dst_gpu)};
  }
  // Where the stage's transfer carrying request r's KV landed: the exact GPU pair if there is one (buffer port =
  // the engine), else the one from / to the right node.
  const SlicePos* find_transfer(int f, int stage, bool load, const Request& r) const {
    const int src = load ? source_gpu(r) : r.pe, dst = load ? r.pe : r.de;
    if (auto it = transfer_loc_.find({f, stage, load, src, dst}); it != transfer_loc_.end()) return &it->second;
    const int a = load ? node_of(src) : src, b = load ? dst : node_of(dst);
    if (auto it = node_transfer_loc_.find({f, stage, load, a, b}); it != node_transfer_loc_.end()) return &it->second;
    return nullptr;
  }

  void add_point(int64_t id, const SlicePos& at, double ts) {
    if (!at.valid()) return;
    // Strictly inside the slice where it has a length, so the point binds to it and not to a neighbour that
    // ends where it starts.
    const double lo = at.start + std::min((at.end - at.start) / 2, kNudgeUs / kUs);
    flow_points_[id].push_back({at, std::clamp(ts, lo, std::max(lo, at.end))});
  }
  // --- traced requests -----------------------------------------------------------------------------------------
  // Agent tracks for up to 8 agents spread over the agent ids (all their rounds); flow arrows on up to
  // flow_requests of their requests, spread over each agent's rounds (all requests when flow_requests < 0).
  void select_traced() {
    const auto& rs = *reqs_;
    traced_.assign(rs.size(), false);
    int n_agents = 0;
    for (const auto& r : rs) n_agents = std::max(n_agents, r.agent + 1);
    std::vector<std::vector<int64_t>> by_agent(static_cast<size_t>(n_agents));
    for (const auto& r : rs)
      if (r.agent >= 0) by_agent[static_cast<size_t>(r.agent)].push_back(r.id);
    if (opt_.flow_requests < 0) {
      for (int a = 0; a < n_agents; ++a) shown_agents_.push_back(a);
      traced_.assign(rs.size(), true);
      st_.traced_requests = static_cast<int64_t>(rs.size());
      return;
    }
    const int k = std::min(n_agents, 8);
    for (int j = 0; j < k; ++j) shown_agents_.push_back(static_cast<int>(static_cast<int64_t>(j) * n_agents / k));
    if (k == 0 || opt_.flow_requests == 0) return;
    int64_t budget = opt_.flow_requests;
    for (int j = 0; j < k; ++j) {
      const auto& ids = by_agent[static_cast<size_t>(shown_agents_[static_cast<size_t>(j)])];
      const int64_t share = budget / (k - j);  // what is left, split over the agents still to come
      const auto n = static_cast<int64_t>(ids.size());
      const int64_t take = std::min(n, share);
      for (int64_t i = 0; i < take; ++i) {
        const int64_t id = ids[static_cast<size_t>(i * n / take)];
        if (!traced_[static_cast<size_t>(id)]) traced_[static_cast<size_t>(id)] = true, ++st_.traced_requests;
      }
      budget -= take;
    }
  }
  // --- what to show in full: families of detail slices share one budget, in order of priority --------------------
  void plan() {
    const auto& fw = log_->forwards;
    traced_forward_.assign(fw.size(), false);
    for (size_t f = 0; f < fw.size(); ++f)
      for (int64_t id : fw[f].request_ids)
        if (traced(id)) {
          traced_forward_[f] = true;
          forwards_of_[id].push_back(static_cast<int>(f));
        }
    int64_t reads = 0, handoffs = 0;
    for (const auto& r : *reqs_) {
      reads += r.hit_bytes > 0 && r.t.read_start >= 0;
      handoffs += r.t.handoff_start >= 0;
    }
    const int64_t limit = opt_.detail_limit < 0 ? std::numeric_limits<int64_t>::max() : opt_.detail_limit;
    int64_t left = limit;
    auto take = [&left](int64_t n) {
      if (n > left) return false;
      left -= n;
      return true;
    };
    stages_full_ = take(static_cast<int64_t>(log_->stages.size()));
    reads_full_ = take(reads);
    const auto chunks = static_cast<int64_t>(log_->decode_chunks.size());
    if (!take(chunks)) {
      const int64_t room = std::max<int64_t>({left, limit / 10, 1});
      decode_merge_ = static_cast<size_t>((chunks + room - 1) / room);
      left = std::max<int64_t>(0, left - (chunks + static_cast<int64_t>(decode_merge_) - 1) /
                                             static_cast<int64_t>(decode_merge_));
    }
    handoffs_full_ = take(handoffs);
    const auto& tr = log_->transfers;
    transfers_all_ = take(2 * static_cast<int64_t>(tr.size()));
    if (!transfers_all_) {
      int64_t of_traced = 0;
      for (const auto& t : tr) of_traced += t.forward >= 0 && traced_forward_[static_cast<size_t>(t.forward)];
      traced_forwards_all_ = take(2 * of_traced);
      if (!traced_forwards_all_) {
        // Only the transfers that carry a traced request's KV: its loads into its PE from the node whose buffer
        // holds its hit KV, and its sends from its PE to its DE's node (the CNIC a buffer is reached through is
        // the core's choice, sim.kv_port, so transfers are matched by node on the buffer side).
        for (const auto& [id, fs] : forwards_of_) {
          const Request& r = req(id);
          for (int f : fs) {
            traced_pairs_.insert({f, true, node_of(source_gpu(r)), r.pe});
            if (r.read.side() == ReadSide::Split) traced_pairs_.insert({f, true, node_of(r.de), r.pe});
            traced_pairs_.insert({f, false, r.pe, node_of(r.de)});
          }
        }
      }
    }
  }
  // --- prefill forwards with stage children --------------------------------------------------------------------
  void forwards() {
    const auto& fw = log_->forwards;
    st_.forwards = static_cast<int64_t>(fw.size());
    const bool stages_full = stages_full_;
    // Stage records of a forward are contiguous, in forward order.
    std::vector<size_t> first_stage(fw.size() + 1, log_->stages.size());
    for (size_t i = log_->stages.size(); i-- > 0;) first_stage[static_cast<size_t>(log_->stages[i].forward)] = i;
    forward_loc_.assign(fw.size(), SlicePos{});
    for (size_t f = 0; f < fw.size(); ++f) {
      const auto& rec = fw[f];
      const int node = node_of(rec.leader_gpu);
      const int tid = threads_.get(node_pid(node), unit_name(true, static_cast<size_t>(rec.unit)), rec.unit);
      const double end = end_or_run_end(rec.compute_end);
      const SlicePos at{node_pid(node), tid, rec.start, end};
      if (traced_forward_[f]) forward_loc_[f] = at;
      const bool detail = stages_full || traced_forward_[f];
      std::string& s = slice(at, detail ? "forward" : "forward (stages folded)", "prefill");
      s += ",\"args\":{\"forward\":" + std::to_string(f) + ",\"requests\":" + std::to_string(rec.requests) +
           ",\"fresh_tokens\":" + std::to_string(rec.fresh_tokens) + ",\"stages\":" + std::to_string(rec.stages);
      if (traced_forward_[f]) {
        s += ",\"request_ids\":[";
        for (size_t i = 0; i < rec.request_ids.size(); ++i) {
          if (i) s += ',';
          s += std::to_string(rec.request_ids[i]);
        }
        s += ']';
      }
      s += '}';
      out_.done();
      if (!detail) {
        ++st_.folded_forwards;
        continue;
      }
      int layer = 0;
      for (size_t i = first_stage[f]; i < log_->stages.size() && log_->stages[i].forward == static_cast<int>(f); ++i) {
        const auto& sr = log_->stages[i];
        const int first = layer;
        layer += sr.layers;
        if (sr.compute_start < 0) continue;
        const SlicePos st_at{at.pid, tid, sr.compute_start, std::min(end, end_or_run_end(sr.compute_end))};
        const std::string name = "stage " + std::to_string(sr.stage) + " (layers " + std::to_string(first) + "-" +
                                 std::to_string(layer - 1) + ")";
        std::string& ss = slice(st_at, name.c_str(), "prefill");
        ss += ",\"args\":{\"load_start_ms\":";
        append_num(ss, sr.load_start * 1e3, 6);
        ss += ",\"load_end_ms\":";
        append_num(ss, sr.load_end * 1e3, 6);
        ss += '}';
        out_.done();
        ++st_.stage_slices;
      }
    }
  }
  // --- KV transfers on CNIC lanes ------------------------------------------------------------------------------
  Lanes& lanes(int pid, const std::string& prefix, int sort) {
    auto it = lanes_.find(prefix);
    if (it == lanes_.end()) it = lanes_.emplace(prefix, Lanes(pid, prefix, sort)).first;
    return it->second;
  }

  void transfers() {
    const auto& tr = log_->transfers;
    st_.transfers = static_cast<int64_t>(tr.size());
    std::vector<size_t> order;
    for (size_t i = 0; i < tr.size(); ++i) {
      const auto& t = tr[i];
      const bool of_traced = t.forward >= 0 && traced_forward_[static_cast<size_t>(t.forward)];
      if (transfers_all_ || (of_traced && traced_forwards_all_) || (of_traced && traced_pairs_.count(pair_key(t))))
        order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tr[a].start < tr[b].start; });
    for (size_t i : order) {
      const auto& t = tr[i];
      const double end = end_or_run_end(t.end);
      const char* name = t.load ? "KV load" : "KV send";
      SlicePos side_at[2];
      for (int side = 0; side < 2; ++side) {
        const int gpu = side == 0 ? t.src_gpu : t.dst_gpu;
        const int pid = node_pid(node_of(gpu));
        const std::string prefix = "cnic" + std::to_string(gpu) + (side == 0 ? " rd" : " wr");
        const SlicePos at = lanes(pid, prefix, 1000 + gpu * 100 + side * 50).place(threads_, t.start, end);
        side_at[side] = at;
        std::string& s = slice(at, name, "kv");
        s += ",\"args\":{\"forward\":" + std::to_string(t.forward) + ",\"stage\":" + std::to_string(t.stage) +
             ",\"src_gpu\":" + std::to_string(t.src_gpu) + ",\"dst_gpu\":" + std::to_string(t.dst_gpu) + ",\"MB\":";
        append_num(s, t.bytes / 1e6, 3);
        s += '}';
        out_.done();
        ++st_.transfer_slices;
      }
      if (t.forward >= 0 && traced_forward_[static_cast<size_t>(t.forward)]) {
        // a load is shown where it arrives (the PE's CNIC), a send where it leaves (the PE's CNIC)
        const SlicePos at = t.load ? side_at[1] : side_at[0];
        transfer_loc_[{t.forward, t.stage, t.load, t.src_gpu, t.dst_gpu}] = at;
        const auto k = pair_key(t);
        node_transfer_loc_.try_emplace({t.forward, t.stage, t.load, std::get<2>(k), std::get<3>(k)}, at);
      }
    }
  }
  // --- storage reads on SNIC lanes -----------------------------------------------------------------------------
  void reads() {
    std::vector<int64_t> ids;
    for (const auto& r : *reqs_)
      if (r.hit_bytes > 0 && r.t.read_start >= 0 && r.read.side() != ReadSide::DeHbm) ids.push_back(r.id);
    st_.reads = static_cast<int64_t>(ids.size());
    const bool all = reads_full_;
    std::stable_sort(ids.begin(), ids.end(), [&](int64_t a, int64_t b) { return req(a).t.read_start < req(b).t.read_start; });
    for (int64_t id : ids) {
      if (!all && !traced(id)) continue;
      const Request& r = req(id);
      SlicePos at;  // (a split read has a slice on each node's SNIC, with the request's read times)
      for (int h = 0; h < 2; ++h) {
        const double pe = r.read.pe_hit_bytes();  // (Pe: the hit, De: none, Split: the PE half)
        const double gb = (h == 0 ? pe : r.hit_bytes - pe) / 1e9;
        if (gb <= 0) continue;
        const int node = node_of(h == 0 ? r.pe : r.de);
        at = lanes(node_pid(node), "snic" + std::to_string(node) + " read", 200)
                 .place(threads_, r.t.read_start, end_or_run_end(r.t.read_end));
        std::string& s = slice(at, "storage read", "read");
        s += ",\"args\":{\"request\":" + std::to_string(id) + ",\"side\":\"" + side_name(r.read.side()) +
             "\",\"pe\":" + std::to_string(r.pe) + ",\"de\":" + std::to_string(r.de) + ",\"GB\":";
        append_num(s, gb, 4);
        s += '}';
        out_.done();
        ++st_.read_slices;
      }
      if (traced(id)) read_loc_[id] = at;
    }
  }
  // --- handoffs on decode-unit lanes ---------------------------------------------------------------------------
  void handoffs() {
    std::map<int, int> de_unit;
    for (size_t u = 0; u < in_.de_units.size(); ++u)
      for (int g : in_.de_units[u]) de_unit[g] = static_cast<int>(u);
    std::vector<int64_t> ids;
    for (const auto& r : *reqs_)
      if (r.t.handoff_start >= 0) ids.push_back(r.id);
    st_.handoffs = static_cast<int64_t>(ids.size());
    const bool all = handoffs_full_;
    std::stable_sort(ids.begin(), ids.end(),
                     [&](int64_t a, int64_t b) { return req(a).t.handoff_start < req(b).t.handoff_start; });
    for (int64_t id : ids) {
      if (!all && !traced(id)) continue;
      const Request& r = req(id);
      const auto it = de_unit.find(r.de);
      const int unit = it == de_unit.end() ? 0 : it->second;
      const int leader = unit < static_cast<int>(in_.de_units.size()) && !in_.de_units[static_cast<size_t>(unit)].empty()
                             ? in_.de_units[static_cast<size_t>(unit)].front()
                             : r.de;
      const SlicePos at = lanes(node_pid(node_of(leader)), unit_name(false, static_cast<size_t>(unit)) + " handoff", 100)
                         .place(threads_, r.t.handoff_start, end_or_run_end(r.t.handoff_end));
      std::string& s = slice(at, "handoff", "decode");
      s += ",\"args\":{\"request\":" + std::to_string(id) + ",\"de\":" + std::to_string(r.de) + "}";
      out_.done();
      ++st_.handoff_slices;
      if (traced(id)) handoff_loc_[id] = at;
    }
  }

  // --- decode chunks (merged k at a time beyond the limit) -----------------------------------------------------
  void decode_chunks() {
    const auto& ch = log_->decode_chunks;
    st_.decode_chunks = static_cast<int64_t>(ch.size());
    const size_t merge = decode_merge_;
    std::map<int, std::vector<size_t>> by_unit;
    for (size_t i = 0; i < ch.size(); ++i) by_unit[ch[i].unit].push_back(i);
    for (const auto& [unit, idx] : by_unit) {
      auto& locs = decode_loc_[unit];
      for (size_t j = 0; j < idx.size(); j += merge) {
        const size_t last = std::min(idx.size(), j + merge) - 1;
        const auto& a = ch[idx[j]];
        const auto& b = ch[idx[last]];
        const int pid = node_pid(node_of(a.leader_gpu));
        const int tid = threads_.get(pid, unit_name(false, static_cast<size_t>(unit)), unit);
        const SlicePos at{pid, tid, a.start, std::max(a.start, end_or_run_end(b.end))};
        int steps = 0, batch = 0;
        for (size_t q = j; q <= last; ++q) steps += ch[idx[q]].steps, batch = std::max(batch, ch[idx[q]].batch);
        std::string& s = slice(at, merge == 1 ? "decode" : "decode (merged chunks)", "decode");
        s += ",\"args\":{\"steps\":" + std::to_string(steps) + ",\"batch\":" + std::to_string(batch);
        if (merge > 1) s += ",\"chunks\":" + std::to_string(last - j + 1);
        s += '}';
        out_.done();
        ++st_.decode_slices;
        locs.push_back(at);
      }
    }
  }

  // --- agent tracks --------------------------------------------------------------------------------------------
  void agents() {
    if (shown_agents_.empty()) return;
    const int pid = requests_pid();
    std::set<int> shown(shown_agents_.begin(), shown_agents_.end());
    for (const auto& r : *reqs_) {
      if (!shown.count(r.agent) || r.t.arrival < 0) continue;
      const int tid = threads_.get(pid, "agent " + std::to_string(r.agent), r.agent);
      // A lost attempt (fault node-down) ends when it was lost; its restart is the next slice of the agent.
      const double end = r.t.done >= 0 ? r.t.done : r.lost_at >= 0 ? r.lost_at : in_.end_time;
      const SlicePos at{pid, tid, r.t.arrival, std::max(r.t.arrival, end)};
      const std::string name = "round " + std::to_string(r.round) + (r.t.done < 0 && r.lost ? " (lost)" : "");
      std::string& s = slice(at, name.c_str(), "request");
      s += ",\"args\":{\"request\":" + std::to_string(r.id) + ",\"prompt\":" + std::to_string(r.prompt) +
           ",\"hit\":" + std::to_string(r.hit) + ",\"gen\":" + std::to_string(r.gen) + ",\"pe\":" +
           std::to_string(r.pe) + ",\"de\":" + std::to_string(r.de) + ",\"side\":\"" +
           side_name(r.read.side()) + "\"}";
      out_.done();
      const double bounds[] = {r.t.arrival,     r.t.scheduled(), r.t.read_start, r.t.read_end,
                               r.t.first_token, r.t.handoff_end, r.t.done};
      const char* names[] = {"queue", "allocate", "read", "prefill", "handoff", "decode"};
      double prev = at.start;
      for (int p = 0; p < 6; ++p) {
        const double a = bounds[p], b = bounds[p + 1];
        if (a < 0 || b < 0) break;
        const double s0 = std::clamp(a, prev, at.end), s1 = std::clamp(b, s0, at.end);
        slice({pid, tid, s0, s1}, names[p], "request");
        out_.done();
        prev = s1;
      }
      if (traced(r.id)) agent_loc_[r.id] = at;
    }
  }

  // --- flow arrows ---------------------------------------------------------------------------------------------
  void flows() {
    for (const auto& r : *reqs_) {
      if (!traced(r.id)) continue;
      const int64_t id = r.id;
      if (auto it = agent_loc_.find(id); it != agent_loc_.end()) add_point(id, it->second, r.t.arrival);
      if (auto it = read_loc_.find(id); it != read_loc_.end()) add_point(id, it->second, r.t.read_start);
      if (auto it = forwards_of_.find(id); it != forwards_of_.end()) {
        for (size_t k = 0; k < it->second.size(); ++k) {
          const int f = it->second[k];
          const auto& rec = log_->forwards[static_cast<size_t>(f)];
          add_point(id, forward_loc_[static_cast<size_t>(f)], rec.start);
          if (const SlicePos* t = find_transfer(f, 0, true, r)) add_point(id, *t, t->start);
          if (k + 1 == it->second.size() && rec.stages > 0)
            if (const SlicePos* t = find_transfer(f, rec.stages - 1, false, r)) add_point(id, *t, t->start);
        }
      }
      if (auto it = handoff_loc_.find(id); it != handoff_loc_.end()) add_point(id, it->second, r.t.handoff_start);
      if (r.t.second_token >= 0) {
        int unit = -1;
        for (size_t u = 0; u < in_.de_units.size() && unit < 0; ++u)
          for (int g : in_.de_units[u])
            if (g == r.de) unit = static_cast<int>(u);
        if (auto it = decode_loc_.find(unit); it != decode_loc_.end()) {
          const auto& v = it->second;
          auto pos = std::upper_bound(v.begin(), v.end(), r.t.second_token,
                                      [](double t, const SlicePos& l) { return t < l.start; });
          if (pos != v.begin()) {
            --pos;
            if (r.t.second_token <= pos->end + 1e-9) add_point(id, *pos, r.t.second_token);
          }
        }
      }
      st_.flow_events += write_flow(out_, id, flow_points_[id]);
    }
  }

  Out out_;
  const TraceInput& in_;
  const TraceOptions& opt_;
  const ActivityLog* log_ = nullptr;
  const RequestLog* reqs_ = nullptr;
  int nodes_ = 0, gpn_ = 8;
  TraceEventStats st_;
  Threads threads_;
  std::map<std::string, Lanes> lanes_;
  std::vector<bool> traced_;
  std::vector<int> shown_agents_;
  std::vector<bool> traced_forward_;
  bool stages_full_ = true, reads_full_ = true, handoffs_full_ = true, transfers_all_ = true,
       traced_forwards_all_ = true;
  size_t decode_merge_ = 1;
  std::set<std::tuple<int, bool, int, int>> traced_pairs_;  // (forward, load, src, dst) shown when not all are
  std::map<int64_t, std::vector<int>> forwards_of_;
  std::vector<SlicePos> forward_loc_;
  std::map<std::tuple<int, int, bool, int, int>, SlicePos> transfer_loc_, node_transfer_loc_;
  std::map<int64_t, SlicePos> read_loc_, handoff_loc_, agent_loc_;
  std::map<int, std::vector<SlicePos>> decode_loc_;
  std::map<int64_t, std::vector<std::pair<SlicePos, double>>> flow_points_;
};

}  // namespace

TraceEventStats write_trace_events(std::ostream& out, const TraceInput& in, const TraceOptions& options) {
  return TraceBuilder(out, in, options).run();
}

std::string trace_file_for_policy(const std::string& file, const std::string& policy) {
  const auto slash = file.find_last_of('/');
  const auto dot = file.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1 || dot == 0)
    return file + "." + policy;
  return file.substr(0, dot) + "." + policy + file.substr(dot);
}

}  // namespace dualpath
