// The run pipeline (core/run/run_pipeline.hpp) on the closed-form fake backend: one run writes the whole folder,
// merges the body's keys, counts the body's errors against "complete", calls stalled() only when the backend ran
// out of work with rounds left, and with a fault baseline adds "fault_impact" against that run's results.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/run/fault_impact.hpp"
#include "core/run/run_pipeline.hpp"
#include "fake_backend.hpp"
#include "temp_dir_test.hpp"
#include "test_scenario.hpp"

using namespace dualpath;
using dualpath::test::FakeBackend;
using dualpath::test::FakeRates;

namespace {

Scenario scenario() {
  Scenario s = test::small_scenario(1, 1, 1);
  s.policy.name = "dualpath";
  s.workload.profile = Profile::K32;
  s.workload.trajectories = 6;
  s.workload.max_len = 20000;
  return s;
}

// A body over the fake backend; `run_it` false leaves every round undone (a backend with nothing to do).
class FakeBody final : public RunBody {
 public:
  bool run_it = true, cut_short = false;
  std::vector<std::string> drive_errors, section_errors;
  int stalls = 0;
  std::string stall_report;
  explicit FakeBody(double snic_bw = 50e9) : be(FakeRates{snic_bw, 50e9, 1}) {}
  FakeBackend be;
  LinkReport report;

  Backend& backend() override { return be; }
  DriveEnd drive(Cluster& cluster) override {
    if (run_it) {
      cluster.start();
      be.run();
    }
    return {cut_short, drive_errors};
  }
  void stalled(const std::string& what, std::vector<std::string>& errors) override {
    ++stalls;
    stall_report = what;
    errors.push_back("stalled");
  }
  const LinkReport& links(const RunSummary& rs) override {
    report.end_time = rs.jct;
    return report;
  }
  void add_sections(nlohmann::json& summary, const Cluster&, std::vector<std::string>& errors) override {
    summary["links"]["measured"] = "by the fake";
    summary["backend"] = "fake";
    for (const auto& e : section_errors) errors.push_back(e);
  }
  nlohmann::json perf_counts() const override { return {{"events", 7}}; }
  double end_time() const override { return be.now(); }
};

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

class RunPipeline : public test::TempDirTest {};

}  // namespace

TEST_F(RunPipeline, OneRunWritesTheFolderWithTheBodysKeysMerged) {
  FakeBody body;
  const std::string out = (dir_ / "run").string();
  const RunResult r = run_pipeline(scenario(), "", out, body);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(body.stalls, 0);
  for (const char* f : {"summary.json", "requests.csv", "waits.csv", "links.csv", "perf.json"})
    EXPECT_TRUE(std::filesystem::exists(dir_ / "run" / f)) << f;
  const nlohmann::json s = read_json(dir_ / "run" / "summary.json");
  EXPECT_EQ(s, r.summary);
  EXPECT_TRUE(s.at("complete").get<bool>());
  EXPECT_EQ(s.at("results").at("rounds"), s.at("rounds_total"));
  EXPECT_GT(s.at("rounds_total").get<int64_t>(), 6);  // several rounds per trajectory
  EXPECT_EQ(s.at("backend"), "fake");
  EXPECT_EQ(s.at("links").at("measured"), "by the fake");
  EXPECT_TRUE(s.at("links").contains("pe_snic_read_utilisation")) << "the body's links keys add to the common ones";
  EXPECT_FALSE(s.contains("stop")) << "an offline run has no stop rule";
  EXPECT_FALSE(s.contains("fault_impact"));
  const nlohmann::json perf = read_json(dir_ / "run" / "perf.json");
  EXPECT_EQ(perf.at("events"), 7);
  EXPECT_DOUBLE_EQ(perf.at("simulated_s").get<double>(), body.be.now());
  EXPECT_DOUBLE_EQ(r.simulated_seconds, body.be.now());
  EXPECT_TRUE(perf.contains("version") && perf.contains("wall_s"));
}

TEST_F(RunPipeline, TheBodysErrorsMakeTheRunIncomplete) {
  FakeBody body;
  body.drive_errors = {"transport: lost"};
  body.section_errors = {"node 1 hung"};
  const RunResult r = run_pipeline(scenario(), "", (dir_ / "run").string(), body);
  EXPECT_EQ(r.errors, (std::vector<std::string>{"transport: lost", "node 1 hung"}));
  EXPECT_FALSE(r.summary.at("complete").get<bool>()) << "every round done, but errors were reported";
  EXPECT_EQ(body.stalls, 0);
}

TEST_F(RunPipeline, StalledOnlyWhenTheBackendRanOutOfWorkWithRoundsLeft) {
  FakeBody idle;
  idle.run_it = false;
  const RunResult r = run_pipeline(scenario(), "", (dir_ / "idle").string(), idle);
  EXPECT_EQ(idle.stalls, 1);
  EXPECT_FALSE(idle.stall_report.empty());
  EXPECT_EQ(r.errors, std::vector<std::string>{"stalled"});
  EXPECT_FALSE(r.summary.at("complete").get<bool>());
  FakeBody stopped;
  stopped.run_it = false, stopped.cut_short = true;  // a time limit or a stop rule ended it: not a stall
  const RunResult c = run_pipeline(scenario(), "", (dir_ / "cut").string(), stopped);
  EXPECT_EQ(stopped.stalls, 0);
  EXPECT_TRUE(c.errors.empty());
  EXPECT_FALSE(c.summary.at("complete").get<bool>()) << "rounds are left";
}

TEST_F(RunPipeline, AFaultBaselineAddsTheImpactAgainstItsResults) {
  FakeBody first;
  const std::string base = (dir_ / "base").string();
  const RunResult b = run_pipeline(scenario(), "", base, first);
  FakeBody second(5e9);  // a slower SNIC stands for the fault
  RunExtras extras;
  extras.fault_baseline = base;
  const RunResult r = run_pipeline(scenario(), "", (dir_ / "run").string(), second, extras);
  const nlohmann::json& imp = r.summary.at("fault_impact");
  const double with = r.summary.at("results").at("jct_s"), without = b.summary.at("results").at("jct_s");
  EXPECT_GT(with, without);
  EXPECT_EQ(imp.at("baseline"), base);
  EXPECT_EQ(imp.at("jct_s").at("with_faults").get<double>(), with);
  EXPECT_EQ(imp.at("jct_s").at("without").get<double>(), without);
  EXPECT_DOUBLE_EQ(imp.at("jct_s").at("change").get<double>(), with / without - 1);
  EXPECT_EQ(read_json(dir_ / "run" / "summary.json").at("fault_impact"), imp);
}

TEST_F(RunPipeline, AMissingBaselineFailsBeforeTheRunNamingTheFile) {
  FakeBody body;
  RunExtras extras;
  extras.fault_baseline = (dir_ / "none").string();
  try {
    run_pipeline(scenario(), "", (dir_ / "run").string(), body, extras);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir_ / "none" / "summary.json").string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(body.be.now(), 0.0) << "nothing ran";
  EXPECT_FALSE(std::filesystem::exists(dir_ / "run" / "summary.json"));
}

TEST(FaultImpact, ChangeIsWithOverWithoutLessOneAndZeroWithoutAReference) {
  RunSummary with, without;
  with.jct = 150, without.jct = 100;
  with.ttft.p50 = 2, without.ttft.p50 = 0;
  with.slo_both_ok = 0.5, without.slo_both_ok = 1;
  const nlohmann::json imp = fault_impact(with, without, "b");
  EXPECT_DOUBLE_EQ(imp.at("jct_s").at("change").get<double>(), 0.5);
  EXPECT_EQ(imp.at("ttft_p50_s").at("change").get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(imp.at("slo_both_ok_fraction").at("change").get<double>(), -0.5);
  for (const char* k : {"jct_s", "ttft_p50_s", "ttft_p99_s", "tpot_p50_s", "slo_both_ok_fraction"})
    EXPECT_TRUE(imp.contains(k)) << k;
}
