// The trace-event writer on hand-made data: layout (processes, tracks, lanes), flows, folding and counter merging.
#include "core/metrics/trace_events.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace dualpath {
namespace {

using nlohmann::json;

// 2 nodes x 2 GPUs: node 0 prefill (GPUs 0-1, one EP2 unit), node 1 decode (GPUs 2-3, one EP2 unit).
struct Fixture {
  ActivityLog log;
  RequestLog reqs;
  TraceInput in;

  Fixture() {
    for (int i = 0; i < 2; ++i) {
      Request r;
      r.id = i, r.agent = i, r.round = 0, r.prompt = 1000, r.hit = 800, r.fresh = 200, r.gen = 10;
      r.pe = i, r.de = 2 + i, r.hit_bytes = 8e8;
      if (i == 0) r.read.set_path(ReadSide::De, 0, 0);
      else r.read.set_path(ReadSide::Pe, r.hit, r.hit_bytes);
      r.t = {0.0, 0.01, 0.01, 0.02, 0.12, 0.12, 0.30, 0.31, 0.33, 0.34, 0.50};
      reqs.push_back(r);
    }
    ForwardRecord f;
    f.unit = 0, f.leader_gpu = 0, f.start = 0.12, f.compute_end = 0.30, f.stages = 2, f.requests = 2;
    f.fresh_tokens = 400, f.request_ids = {0, 1};
    log.forwards.push_back(f);
    log.stages.push_back({0, 0, 2, 0.12, 0.15, 0.15, 0.22});
    log.stages.push_back({0, 1, 2, 0.15, 0.18, 0.22, 0.30});
    for (int s = 0; s < 2; ++s) {
      const double t0 = s == 0 ? 0.12 : 0.15;
      log.transfers.push_back({0, s, true, 2, 0, 4e8, t0, t0 + 0.03});  // request 0: DE buffer (GPU 2) -> GPU 0
      log.transfers.push_back({0, s, true, 1, 1, 4e8, t0, t0 + 0.02});  // request 1: local H2D on GPU 1
      const double t1 = s == 0 ? 0.22 : 0.30;
      log.transfers.push_back({0, s, false, 0, 2, 1e8, t1, t1 + 0.005});
      log.transfers.push_back({0, s, false, 1, 3, 1e8, t1, t1 + 0.005});
    }
    log.decode_chunks.push_back({0, 2, 0.33, 0.42, 5, 2});
    log.decode_chunks.push_back({0, 2, 0.42, 0.50, 5, 2});
    in.title = "test / dualpath";
    in.gpus_per_node = 2, in.prefill_nodes = 1, in.decode_nodes = 1;
    in.pe_units = {{0, 1}}, in.de_units = {{2, 3}};
    in.log = &log, in.requests = &reqs;
    in.links = {{"snic0_down", LinkClass::SnicDown, 0, -1, 50e9}, {"cnic0_rd", LinkClass::CnicRd, 0, 0, 50e9},
                {"stor0_ssd_read", LinkClass::Storage, -1, -1, 100e9}};
    // snic0 busy in intervals 0 and 2 (idle in 1): a zero must close interval 0 and interval 2.
    in.samples = {{0, 0.1, 0, 0, 0.5}, {0, 0.1, 1, 0.1, 0.2}, {0, 0.1, 2, 0, 0.3}, {0.1, 0.1, 1, 0, 0.4},
                  {0.2, 0.1, 0, 0, 1.0}};
    in.sample_interval = 0.1;
    in.end_time = 0.5;
  }

  json write(const TraceOptions& opt, TraceEventStats* st = nullptr) {
    std::ostringstream os;
    const TraceEventStats s = write_trace_events(os, in, opt);
    if (st) *st = s;
    EXPECT_EQ(s.bytes, os.str().size());
    return json::parse(os.str());
  }
};

struct Names {
  std::map<int, std::string> process;
  std::map<std::pair<int, int>, std::string> thread;
  explicit Names(const json& doc) {
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] != "M") continue;
      if (e["name"] == "process_name") process[e["pid"]] = e["args"]["name"];
      if (e["name"] == "thread_name") thread[{e["pid"], e["tid"]}] = e["args"]["name"];
    }
  }
  std::string of(const json& e) const {
    auto it = thread.find({e["pid"].get<int>(), e.value("tid", -1)});
    return it == thread.end() ? "" : it->second;
  }
};

std::vector<json> events(const json& doc, const std::string& ph, const std::string& name = "") {
  std::vector<json> out;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == ph && (name.empty() || e["name"] == name)) out.push_back(e);
  return out;
}

TEST(TraceEvents, ProcessesTracksAndSlices) {
  Fixture fx;
  TraceEventStats st;
  const json doc = fx.write({}, &st);
  const Names names(doc);
  EXPECT_EQ(names.process.at(1), "node 0 (prefill)");
  EXPECT_EQ(names.process.at(2), "node 1 (decode)");
  EXPECT_EQ(names.process.at(3), "requests (traced agents)");

  const auto fwd = events(doc, "X", "forward");
  ASSERT_EQ(fwd.size(), 1u);
  EXPECT_EQ(names.of(fwd[0]), "prefill unit 0 (EP2, GPUs 0-1)");
  EXPECT_DOUBLE_EQ(fwd[0]["ts"].get<double>(), 120000);
  EXPECT_DOUBLE_EQ(fwd[0]["dur"].get<double>(), 180000);
  EXPECT_EQ(fwd[0]["args"]["request_ids"], json::array({0, 1}));
  int stages = 0;
  for (const auto& e : events(doc, "X"))
    if (e["name"].get<std::string>().rfind("stage ", 0) == 0) {
      ++stages;
      EXPECT_EQ(e["tid"], fwd[0]["tid"]);
    }
  EXPECT_EQ(stages, 2);

  // Request 0 reads through node 1's SNIC (DE side), request 1 through node 0's.
  const auto reads = events(doc, "X", "storage read");
  ASSERT_EQ(reads.size(), 2u);  // one per request, so the loop below checks both
  for (const auto& e : reads) {
    const int id = e["args"]["request"];
    EXPECT_EQ(e["pid"], id == 0 ? 2 : 1);
    EXPECT_EQ(names.of(e), id == 0 ? "snic1 read #0" : "snic0 read #0");
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 20000);
  }
  // Every KV transfer appears on the CNIC it leaves through and the one it arrives on; concurrent ones in lanes.
  std::set<std::string> tracks;
  for (const auto& e : events(doc, "X")) {
    if (e["cat"] != "kv") continue;
    tracks.insert(names.of(e));
  }
  EXPECT_TRUE(tracks.count("cnic2 rd #0") && tracks.count("cnic0 wr #0") && tracks.count("cnic1 rd #0") &&
              tracks.count("cnic1 wr #0") && tracks.count("cnic0 rd #0") && tracks.count("cnic3 wr #0"));
  EXPECT_EQ(st.transfer_slices, 16);
  int decode = 0, handoff = 0;  // engine slices (agent tracks have phases of the same names, cat "request")
  for (const auto& e : events(doc, "X"))
    if (e["cat"] == "decode") (e["name"] == "decode" ? decode : handoff) += 1;
  EXPECT_EQ(decode, 2);
  EXPECT_EQ(handoff, 2);
  // Agent tracks: one slice per request plus its six phases.
  EXPECT_EQ(events(doc, "X", "round 0").size(), 2u);
  EXPECT_EQ(events(doc, "X", "queue").size(), 2u);
}

TEST(TraceEvents, FlowsFollowRequests) {
  Fixture fx;
  const json doc = fx.write({});
  const Names names(doc);
  std::map<int, std::vector<json>> flows;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "s" || e["ph"] == "t" || e["ph"] == "f") flows[e["id"]].push_back(e);
  ASSERT_EQ(flows.size(), 2u);
  const auto& f0 = flows[0];
  // arrival (agent) -> read (snic1) -> forward -> stage-0 load (cnic0 wr) -> last send (cnic0 rd) -> handoff -> decode
  ASSERT_EQ(f0.size(), 7u);
  EXPECT_EQ(f0.front()["ph"], "s");
  EXPECT_EQ(f0.back()["ph"], "f");
  EXPECT_EQ(names.of(f0[0]), "agent 0");
  EXPECT_EQ(names.of(f0[1]), "snic1 read #0");
  EXPECT_EQ(names.of(f0[2]), "prefill unit 0 (EP2, GPUs 0-1)");
  EXPECT_EQ(names.of(f0[3]).rfind("cnic0 wr", 0), 0u);
  EXPECT_EQ(names.of(f0[4]).rfind("cnic0 rd", 0), 0u);
  EXPECT_NE(names.of(f0[5]).find("handoff #0"), std::string::npos);
  EXPECT_EQ(names.of(f0[6]), "decode unit 0 (EP2, GPUs 2-3)");
  for (size_t i = 1; i < f0.size(); ++i) {
    EXPECT_GT(f0[i]["ts"].get<double>(), f0[i - 1]["ts"].get<double>());
    EXPECT_EQ(f0[i]["bp"], "e");
  }
}

TEST(TraceEvents, CountersAreSparseAwareAndSkipStorage) {
  Fixture fx;
  const json doc = fx.write({});
  std::map<std::string, std::vector<std::pair<double, json>>> c;
  for (const auto& e : events(doc, "C")) c[e["name"]].push_back({e["ts"].get<double>(), e["args"]});
  EXPECT_EQ(c.count("stor0_ssd_read"), 0u);
  const auto& snic = c.at("snic0_down");
  // 0.5 x 50 GB/s at 0, idle from 0.1, 1.0 x 50 GB/s at 0.2, idle from 0.3.
  ASSERT_EQ(snic.size(), 4u);
  EXPECT_DOUBLE_EQ(snic[0].first, 0);
  EXPECT_DOUBLE_EQ(snic[0].second["GB/s"].get<double>(), 25);
  EXPECT_DOUBLE_EQ(snic[1].first, 100000);
  EXPECT_DOUBLE_EQ(snic[1].second["GB/s"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(snic[2].second["GB/s"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(snic[3].first, 300000);
  const auto& cnic = c.at("cnic0_rd");  // busy in intervals 0 and 1: no zero in between
  ASSERT_EQ(cnic.size(), 3u);
  EXPECT_DOUBLE_EQ(cnic[0].second["kv GB/s"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(cnic[0].second["model GB/s"].get<double>(), 5);
  EXPECT_DOUBLE_EQ(cnic[1].second["kv GB/s"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(cnic[2].second["kv GB/s"].get<double>(), 0);
}

TEST(TraceEvents, LimitsFoldAndMerge) {
  Fixture fx;
  TraceOptions opt;
  opt.flow_requests = 0;   // nobody traced: only what fits the limits stays
  opt.detail_limit = 1;    // every family is over the limit
  opt.counter_limit = 3;   // 4 samples -> merged intervals (two links need at least 4 points: as close as it gets)
  TraceEventStats st;
  const json doc = fx.write(opt, &st);
  EXPECT_EQ(events(doc, "X", "forward (stages folded)").size(), 1u);
  EXPECT_EQ(st.stage_slices, 0);
  EXPECT_EQ(st.transfer_slices, 0);
  EXPECT_EQ(st.read_slices, 0);
  EXPECT_EQ(events(doc, "X", "decode (merged chunks)").size(), 1u);
  EXPECT_EQ(st.handoff_slices, 0);
  EXPECT_EQ(events(doc, "s").size(), 0u);
  EXPECT_DOUBLE_EQ(st.counter_interval, 0.4);
  EXPECT_EQ(st.counter_points, 4);
  // Merging keeps time averages, so the bytes under the counter stay the same.
  double bytes = 0;
  auto c = events(doc, "C", "snic0_down");
  for (size_t i = 0; i + 1 < c.size(); ++i)
    bytes += c[i]["args"]["GB/s"].get<double>() * (c[i + 1]["ts"].get<double>() - c[i]["ts"].get<double>()) / 1e6;
  EXPECT_NEAR(bytes, 0.5 * 50 * 0.1 + 1.0 * 50 * 0.1, 1e-6);  // GB

  // With one traced request, its forward keeps its stages and transfers although the limits are exceeded.
  opt.flow_requests = 1;
  const json doc2 = fx.write(opt, &st);
  EXPECT_EQ(events(doc2, "X", "forward").size(), 1u);
  EXPECT_EQ(st.stage_slices, 2);
  EXPECT_EQ(st.transfer_slices, 8);  // no room for the forward's 8 transfers: only request 0's 2 loads + 2 sends
  EXPECT_EQ(st.read_slices, 1);
  opt.detail_limit = 2 + 2 + 2 + 2 + 16;  // everything fits
  fx.write(opt, &st);
  EXPECT_EQ(st.transfer_slices, 16);
  EXPECT_EQ(st.read_slices, 2);
  EXPECT_EQ(st.decode_slices, 2);
  opt.detail_limit -= 1;  // one slice short: transfers, last in priority, fall back to request 0's
  fx.write(opt, &st);
  EXPECT_EQ(st.transfer_slices, 8);
  EXPECT_EQ(st.handoff_slices, 2);
}

TEST(TraceEvents, PolicyFileNames) {
  EXPECT_EQ(trace_file_for_policy("t.json", "basic"), "t.basic.json");
  EXPECT_EQ(trace_file_for_policy("out/run.trace.json", "dualpath"), "out/run.trace.dualpath.json");
  EXPECT_EQ(trace_file_for_policy("out.d/trace", "oracle"), "out.d/trace.oracle");
  EXPECT_EQ(trace_file_for_policy("trace", "oracle"), "trace.oracle");
}

}  // namespace
}  // namespace dualpath
