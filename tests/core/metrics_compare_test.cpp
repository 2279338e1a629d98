// `dualpath validate`'s comparison (core/metrics/compare.hpp) and folder pairing (core/metrics/run_pairing.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/config/input_error.hpp"
#include "core/metrics/compare.hpp"
#include "core/metrics/run_pairing.hpp"

namespace fs = std::filesystem;
using dualpath::CompareOptions;
using dualpath::compare_summaries;
using dualpath::InputError;
using nlohmann::json;

namespace {

// The parts of a summary.json that validate reads.
json summary(double jct = 100, const std::string& policy = "dualpath", int rounds = 50) {
  json pct = {{"p50", 1.0}, {"p99", 2.0}};
  return {{"policy", policy},
          {"results",
           {{"rounds", rounds},
            {"jct_s", jct},
            {"prompt_tokens_per_s", 1e6},
            {"generated_tokens_per_s", 1e4},
            {"ttft_s", pct},
            {"ttst_s", pct},
            {"tpot_s", {{"p50", 0.002}, {"p99", 0.003}}},
            {"bytes", {{"storage_read", 1e12}, {"storage_write", 1e10}, {"de_to_pe", 0.0}}}}}};
}

const dualpath::MetricComparison& find(const dualpath::Comparison& c, const std::string& name) {
  for (const auto& m : c.metrics)
    if (m.metric == name) return m;
  throw std::runtime_error("no metric " + name);
}

std::string error_of(const json& sim, const json& measured, const CompareOptions& o = {}) {
  try {
    compare_summaries(sim, "sim.json", measured, "hw.json", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(metrics_compare, IdenticalSummariesPassEveryMetric) {
  const auto c = compare_summaries(summary(), "a", summary(), "b", {});
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.policy, "dualpath");
  EXPECT_EQ(c.metrics.size(), 9u + 3u);  // jct, 2 throughputs, 6 latencies, 3 byte classes
  // Storage classes first, then the rest by name.
  EXPECT_EQ(c.metrics[9].metric, "bytes.storage_read");
  EXPECT_EQ(c.metrics[10].metric, "bytes.storage_write");
  EXPECT_EQ(c.metrics[11].metric, "bytes.de_to_pe");
}

TEST(metrics_compare, RelativeErrorAgainstDefaultTolerances) {
  auto c = compare_summaries(summary(120), "a", summary(100), "b", {});
  const auto& jct = find(c, "jct");
  ASSERT_TRUE(jct.rel_error.has_value());
  EXPECT_NEAR(*jct.rel_error, 0.20, 1e-12);
  EXPECT_DOUBLE_EQ(jct.tolerance, 0.10);
  EXPECT_FALSE(jct.ok);
  EXPECT_FALSE(c.ok());
  // Exactly at the tolerance is within it, despite rounding.
  c = compare_summaries(summary(110), "a", summary(100), "b", {});
  EXPECT_TRUE(find(c, "jct").ok);
  EXPECT_DOUBLE_EQ(find(c, "ttft_p99").tolerance, 0.25);
  EXPECT_DOUBLE_EQ(find(c, "bytes.storage_read").tolerance, 0.01);
  EXPECT_DOUBLE_EQ(find(c, "prompt_tokens_per_s").tolerance, 0.10);
}

TEST(metrics_compare, AGateFailsOnlyAMoveTheWorseWay) {
  // As a regression gate (new run first, baseline second): a JCT 20% higher fails, 20% lower passes; lower
  // throughput fails, higher passes; bytes fail either way.
  CompareOptions gate;
  gate.one_sided = true;
  EXPECT_FALSE(find(compare_summaries(summary(120), "new", summary(100), "base", gate), "jct").ok);
  EXPECT_TRUE(find(compare_summaries(summary(80), "new", summary(100), "base", gate), "jct").ok);
  EXPECT_FALSE(find(compare_summaries(summary(80), "new", summary(100), "base", {}), "jct").ok);
  json slow = summary(), fast = summary();
  slow["results"]["generated_tokens_per_s"] = 0.8e4;
  fast["results"]["generated_tokens_per_s"] = 1.2e4;
  fast["results"]["bytes"]["storage_read"] = 0.9e12;
  EXPECT_FALSE(find(compare_summaries(slow, "new", summary(), "base", gate), "generated_tokens_per_s").ok);
  const auto c = compare_summaries(fast, "new", summary(), "base", gate);
  EXPECT_TRUE(find(c, "generated_tokens_per_s").ok);
  EXPECT_FALSE(find(c, "bytes.storage_read").ok);
  EXPECT_EQ(dualpath::worse_direction("latency"), 1);
  EXPECT_EQ(dualpath::worse_direction("throughput"), -1);
  EXPECT_EQ(dualpath::worse_direction("bytes"), 0);
}

TEST(metrics_compare, MetricToleranceWinsOverGroupWhateverTheOrder) {
  CompareOptions o;
  o.tolerances = {dualpath::parse_tolerance("ttft_p50=0.05", "x"), dualpath::parse_tolerance("latency=50%", "y")};
  const auto c = compare_summaries(summary(), "a", summary(), "b", o);
  EXPECT_DOUBLE_EQ(find(c, "ttft_p50").tolerance, 0.05);
  EXPECT_DOUBLE_EQ(find(c, "ttft_p99").tolerance, 0.50);
  EXPECT_DOUBLE_EQ(find(c, "jct").tolerance, 0.10);
}

TEST(metrics_compare, OnlyRestrictsToMetricsAndGroups) {
  CompareOptions o;
  o.only = {"jct", "bytes"};
  const auto c = compare_summaries(summary(200), "a", summary(100), "b", o);
  ASSERT_EQ(c.metrics.size(), 4u);
  EXPECT_EQ(c.metrics[0].metric, "jct");
  o.only = {"tpot_p99"};
  EXPECT_TRUE(compare_summaries(summary(200), "a", summary(100), "b", o).ok());  // JCT not checked
}

TEST(metrics_compare, MeasuredZero) {
  auto sim = summary(), hw = summary();
  // Both zero: ok, no relative error.
  auto c = compare_summaries(sim, "a", hw, "b", {});
  EXPECT_TRUE(find(c, "bytes.de_to_pe").ok);
  EXPECT_FALSE(find(c, "bytes.de_to_pe").rel_error.has_value());
  // Simulated non-zero: the absolute difference, failing unless the tolerance (as an absolute bound) allows it.
  sim["results"]["bytes"]["de_to_pe"] = 5.0;
  c = compare_summaries(sim, "a", hw, "b", {});
  EXPECT_FALSE(find(c, "bytes.de_to_pe").ok);
  EXPECT_DOUBLE_EQ(find(c, "bytes.de_to_pe").abs_error, 5.0);
  CompareOptions o;
  o.tolerances = {dualpath::parse_tolerance("bytes.de_to_pe=10", "x")};
  EXPECT_TRUE(find(compare_summaries(sim, "a", hw, "b", o), "bytes.de_to_pe").ok);
}

TEST(metrics_compare, DifferentExperimentsAreRefused) {
  EXPECT_NE(error_of(summary(100, "basic"), summary(100, "dualpath")).find("sim.json: /policy"), std::string::npos);
  const auto e = error_of(summary(100, "dualpath", 50), summary(100, "dualpath", 49));
  EXPECT_NE(e.find("sim.json: /results/rounds"), std::string::npos) << e;
  EXPECT_NE(e.find("hw.json"), std::string::npos) << e;
}

TEST(metrics_compare, MalformedSummariesNameFileAndPointer) {
  auto hw = summary();
  hw["results"].erase("jct_s");
  EXPECT_NE(error_of(summary(), hw).find("hw.json: /results/jct_s: missing"), std::string::npos);
  hw = summary();
  hw["results"]["ttft_s"]["p99"] = "fast";
  EXPECT_NE(error_of(summary(), hw).find("hw.json: /results/ttft_s/p99: expected a number"), std::string::npos);
  hw = summary();
  hw["results"]["bytes"].erase("storage_write");
  EXPECT_NE(error_of(summary(), hw).find("hw.json: /results/bytes/storage_write: missing"), std::string::npos);
  EXPECT_NE(error_of(json::array(), summary()).find("sim.json: /: expected a summary object"), std::string::npos);
  hw = summary();
  hw.erase("policy");
  EXPECT_NE(error_of(summary(), hw).find("hw.json: /policy: missing"), std::string::npos);
}

TEST(metrics_compare, UnknownNamesAndBadTolerances) {
  CompareOptions o;
  o.tolerances = {dualpath::parse_tolerance("jtc=0.1", "--tol jtc=0.1")};
  EXPECT_NE(error_of(summary(), summary(), o).find("--tol jtc=0.1: unknown metric \"jtc\""), std::string::npos);
  o = {};
  o.only = {"bytes.nvlink"};
  o.only_origin = "--only bytes.nvlink";
  EXPECT_NE(error_of(summary(), summary(), o).find("--only bytes.nvlink: unknown metric"), std::string::npos);
  for (const char* bad : {"jct", "=0.1", "jct=", "jct=-1", "jct=abc", "jct=nan", "jct=0.1x"})
    EXPECT_THROW(dualpath::parse_tolerance(bad, "--tol"), InputError) << bad;
  EXPECT_DOUBLE_EQ(dualpath::parse_tolerance("latency=30%", "--tol").fraction, 0.30);
}

TEST(metrics_compare, JsonRowHasNullRelativeErrorForMeasuredZero) {
  const auto c = compare_summaries(summary(), "a", summary(), "b", {});
  const auto row = dualpath::to_json(find(c, "bytes.de_to_pe"));
  EXPECT_TRUE(row["rel_error"].is_null());
  EXPECT_EQ(row["ok"], true);
  EXPECT_EQ(dualpath::to_json(find(c, "jct"))["rel_error"], 0.0);
}

class metrics_run_pairing : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("dualpath_run_pairing_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string run(const std::string& rel) {
    fs::create_directories(dir_ / rel);
    std::ofstream(dir_ / rel / "summary.json") << "{}";
    return (dir_ / rel).string();
  }
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }
  fs::path dir_;
};

TEST_F(metrics_run_pairing, TwoRunFolders) {
  const auto p = dualpath::pair_run_folders(run("sim"), run("hw"));
  ASSERT_EQ(p.pairs.size(), 1u);
  EXPECT_EQ(p.pairs[0].name, "");
  EXPECT_EQ(p.pairs[0].measured_summary, path("hw/summary.json"));
}

TEST_F(metrics_run_pairing, PolicySubfoldersMatchedByName) {
  run("sim/dualpath");
  run("sim/basic");
  run("sim/oracle");
  run("hw/dualpath");
  run("hw/basic");
  fs::create_directories(dir_ / "hw" / "logs");  // no summary.json: not a run
  const auto p = dualpath::pair_run_folders(path("sim"), path("hw"));
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[0].name, "basic");
  EXPECT_EQ(p.pairs[1].name, "dualpath");
  EXPECT_EQ(p.pairs[1].sim_summary, path("sim/dualpath/summary.json"));
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("oracle"), std::string::npos);
}

TEST_F(metrics_run_pairing, BadFolders) {
  run("sim/basic");
  run("hw1");
  run("hw2/dualpath");
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(dualpath::pair_run_folders(path("sim"), path("missing")), InputError);
  EXPECT_THROW(dualpath::pair_run_folders(path("sim"), path("empty")), InputError);
  EXPECT_THROW(dualpath::pair_run_folders(path("sim"), path("hw1")), InputError);  // mixed layouts
  EXPECT_THROW(dualpath::pair_run_folders(path("sim"), path("hw2")), InputError);  // no common name
  EXPECT_THROW(dualpath::pair_run_folders(path("sim"), path("hw1/summary.json")), InputError);  // a file
}

}  // namespace
