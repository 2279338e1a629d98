// Overlay files (core/config/overlay.hpp): applied after the scenario, in order, before --set; errors name the
// overlay file and the JSON pointer inside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "temp_dir_test.hpp"
#include "core/config/overlay.hpp"

namespace fs = std::filesystem;
using dualpath::InputError;
using dualpath::load_scenario;

namespace {

const std::string kData = DUALPATH_DATA_DIR;

class config_overlay : public dualpath::test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    scenario_ = write("s.json", R"({"name": "t", "model": ")" + kData + R"(/models/ds-27b.json", "topology": ")" +
                                    kData + R"(/topologies/hopper-8gpu-80g.json",
      "deployment": {"prefill_nodes": 1, "decode_nodes": 1, "pe_group_gpus": 8, "de_group_gpus": 8,
                     "fetch_period": "50 ms"},
      "workload": {"mode": "offline", "agents": 4}, "policy": {"name": "basic"}})");
  }
  std::string overlay(const std::string& name, const std::string& set) {
    return write(name, R"({"overlay": 1, "description": "test", "measured": {"x": 1}, "set": )" + set + "}");
  }
  std::string error_of(const std::vector<std::string>& overlays, const std::vector<std::string>& overrides = {}) {
    try {
      load_scenario(scenario_, overrides, overlays);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  std::string scenario_;
};

TEST_F(config_overlay, SetsValuesWithUnitsLikeSet) {
  const auto o = overlay("calib.json", R"({"topology.snic_bw": "212.4 MB/s", "/topology/cnic_bw": "2.31 GB/s",
                                           "model.linear_efficiency": 0.61})");
  const auto s = load_scenario(scenario_, {}, {o});
  EXPECT_DOUBLE_EQ(s.topology.snic_bw, 212.4e6);
  EXPECT_DOUBLE_EQ(s.topology.cnic_bw, 2.31e9);
  EXPECT_DOUBLE_EQ(s.model.linear_efficiency, 0.61);
  EXPECT_EQ(s.overlays, std::vector<std::string>{o});
}

TEST_F(config_overlay, SameResultAsTheEquivalentSetList) {
  const auto o = overlay("calib.json", R"({"topology.snic_bw": "212.4 MB/s", "policy.name": "dualpath"})");
  const auto a = load_scenario(scenario_, {}, {o});
  const auto b = load_scenario(scenario_, {"topology.snic_bw=212.4 MB/s", "policy.name=dualpath"});
  EXPECT_EQ(dualpath::scenario_to_json(a), dualpath::scenario_to_json(b));
}

TEST_F(config_overlay, LaterOverlayWinsAndCommandLineWinsOverBoth) {
  const auto first = overlay("a.json", R"({"topology.snic_bw": "100 MB/s", "topology.cnic_bw": "1 GB/s"})");
  const auto second = overlay("b.json", R"({"topology.snic_bw": "200 MB/s"})");
  auto s = load_scenario(scenario_, {}, {first, second});
  EXPECT_DOUBLE_EQ(s.topology.snic_bw, 200e6);
  EXPECT_DOUBLE_EQ(s.topology.cnic_bw, 1e9);
  s = load_scenario(scenario_, {"topology.snic_bw=300 MB/s"}, {first, second});
  EXPECT_DOUBLE_EQ(s.topology.snic_bw, 300e6);
  EXPECT_EQ(s.overlays, (std::vector<std::string>{first, second}));
}

TEST_F(config_overlay, ValuesAreJsonNotCommandLineText) {
  // --set policy.block_tokens=32 parses "32" as a number; in an overlay the JSON string "32" stays a string.
  const auto o = overlay("calib.json", R"({"policy.block_tokens": "32"})");
  const auto e = error_of({o});
  EXPECT_NE(e.find("calib.json: /set/policy.block_tokens: /policy/block_tokens"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer"), std::string::npos) << e;
}

TEST_F(config_overlay, ModelFileIsRelativeToTheOverlayFolder) {
  fs::create_directories(dir_ / "sub");
  fs::copy_file(kData + "/models/qwen2.5-32b.json", dir_ / "sub" / "m.json");
  const auto o = overlay("sub/calib.json", R"({"model": "m.json", "model.linear_efficiency": 0.7})");
  const auto s = load_scenario(scenario_, {}, {o});
  EXPECT_EQ(s.model.n_layers, 64);  // Qwen2.5-32B, and the field set after the file was swapped in
  EXPECT_DOUBLE_EQ(s.model.linear_efficiency, 0.7);
}

TEST_F(config_overlay, ErrorsNameTheFileAndPointer) {
  EXPECT_NE(error_of({overlay("c.json", R"({"topology.snic_bw": "80 GiB"})")}).find(
                "c.json: /set/topology.snic_bw: /topology/snic_bw: expected a bandwidth"),
            std::string::npos);
  EXPECT_NE(error_of({overlay("c.json", R"({"topology.snic_bww": "8 GB/s"})")}).find("/set/topology.snic_bww"),
            std::string::npos);
  EXPECT_NE(error_of({overlay("c.json", R"({"topology.snic_bww": "8 GB/s"})")}).find("unknown key"),
            std::string::npos);
  EXPECT_NE(error_of({overlay("c.json", R"({"a..b": 1})")}).find("c.json: /set/a..b: empty key"), std::string::npos);
  EXPECT_NE(error_of({overlay("c.json", R"({"policy.name": "basic", "policy/name": "oracle"})")}).find(
                "sets the same field"),
            std::string::npos);
  EXPECT_NE(error_of({overlay("c.json", R"([1])")}).find("c.json: /set: expected an object"), std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"overlay": 2, "set": {}})")}).find("d.json: /overlay: expected 1"),
            std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"set": {}})")}).find("missing required key \"overlay\""), std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"overlay": 1})")}).find("missing required key \"set\""), std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"overlay": 1, "set": {}, "extra": 1})")}).find("d.json: /extra: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"overlay": 1, "set": {}, "description": 5})")}).find("/description"),
            std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"overlay": 1, "set": {}, "measured": 5})")}).find("/measured"),
            std::string::npos);
  EXPECT_NE(error_of({write("d.json", R"({"overlay": 1,)")}).find("d.json:1:"), std::string::npos);
  EXPECT_NE(error_of({(dir_ / "missing.json").string()}).find("overlay file does not exist"), std::string::npos);
}

TEST_F(config_overlay, CommandLineErrorsStillNameTheOverride) {
  const auto o = overlay("calib.json", R"({"topology.snic_bw": "100 MB/s"})");
  EXPECT_NE(error_of({o}, {"topology.snic_bw=80 GiB"}).find("--set topology.snic_bw=80 GiB: /topology/snic_bw"),
            std::string::npos);
}

TEST_F(config_overlay, EmptySetChangesNothing) {
  const auto o = write("e.json", R"({"overlay": 1, "set": {}})");
  EXPECT_EQ(dualpath::scenario_to_json(load_scenario(scenario_, {}, {o})),
            dualpath::scenario_to_json(load_scenario(scenario_)));
  EXPECT_EQ(dualpath::read_overlay(o).set.size(), 0u);
}

TEST_F(config_overlay, BundledExampleLoads) {
  const auto s = load_scenario(kData + "/scenarios/default.json", {},
                               {kData + "/scenarios/overlays/example-calibration.json"});
  EXPECT_DOUBLE_EQ(s.topology.snic_bw, 199.2e6);
}

}  // namespace
