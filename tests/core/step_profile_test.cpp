// Step profiles (model.timing = profile, docs/cost-model.md "Profiles"): the reader refuses malformed tables with the
// JSON path, lookups interpolate linearly between points, hold the first point below the grid and refuse beyond it
// with one line naming the shape, and a profile written from the roofline gives the roofline's own step times.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/config/loader.hpp"
#include "core/cost/cost_table.hpp"
#include "core/cost/profile_writer.hpp"
#include "core/cost/step_profile.hpp"
#include "temp_dir_test.hpp"

using namespace dualpath;

namespace {

const std::string kData = DUALPATH_DATA_DIR;

// A hand-made profile: prefill attention on a 2x2 grid, linear work at 2 points, decode on a 2x3 grid.
const char* kHandMade = R"({
  "name": "hand-made", "label": "made up for the test",
  "prefill": [{"group_gpus": 16, "cached": [0, 1000], "fresh": [10, 110],
               "attention_layer_s": [[1e-6, 2e-6], [3e-6, 5e-6]],
               "tokens": [100, 1100], "linear_layer_s": [1e-4, 2e-4]}],
  "decode": [{"group_gpus": 32, "batch": [1, 3], "context": [1000, 2000, 4000],
              "token_s": [[0.010, 0.012, 0.016], [0.020, 0.024, 0.032]]}]
})";

class step_profile : public test::TempDirTest {
 protected:
  std::string error_of(const std::string& text) {
    try {
      read_step_profile(write("p.json", text));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace

TEST_F(step_profile, InterpolatesLinearlyHoldsTheFirstPointAndRefusesBeyondTheLast) {
  const StepProfile p = read_step_profile(write("p.json", kHandMade));
  EXPECT_EQ(p.label, "made up for the test");
  const PrefillProfile* pf = p.prefill_for(16);
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(p.prefill_for(8), nullptr);
  EXPECT_DOUBLE_EQ(profile_at(pf->attention, 0, 10, p.file, "t"), 1e-6);
  EXPECT_NEAR(profile_at(pf->attention, 500, 60, p.file, "t"), 60 * (1e-7 + 2e-6 / 110 + 3e-7 + 5e-6 / 110) / 4, 1e-18);  // centre
  // Attention is interpolated per fresh token (exact on the causal quadratic): at fresh 35 on the cached-1000 row,
  // 3e-6 / 10 and 5e-6 / 110 a quarter of the way, times 35.
  EXPECT_NEAR(profile_at(pf->attention, 1000, 35, p.file, "t"), 35 * (3e-7 + 0.25 * (5e-6 / 110 - 3e-7)), 1e-18);
  EXPECT_NEAR(profile_at(pf->attention, 0, 1, p.file, "t"), 1e-7, 1e-18);  // below the first point: its time per token
  EXPECT_DOUBLE_EQ(profile_at(pf->linear, 600, p.file, "t"), 1.5e-4);
  const DecodeProfile* d = p.decode_for(32);
  ASSERT_NE(d, nullptr);
  EXPECT_DOUBLE_EQ(profile_at(d->token_seconds, 2, 3000, p.file, "t"), (0.012 + 0.016 + 0.024 + 0.032) / 4);
  EXPECT_DOUBLE_EQ(profile_at(d->token_seconds, 0.5, 500, p.file, "t"), 0.010);
  EXPECT_DOUBLE_EQ(profile_at(d->token_seconds, 3, 4000, p.file, "t"), 0.032);  // the last point is inside
  try {
    profile_at(d->token_seconds, 4, 2000, p.file, "decode step of EP32");
    FAIL() << "a batch beyond the table must be refused";
  } catch (const ProfileRangeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("decode step of EP32: batch 4 is outside the measured range 1..3"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line";
  }
  EXPECT_THROW(profile_at(pf->attention, 1001, 10, p.file, "t"), ProfileRangeError);
  EXPECT_THROW(profile_at(pf->linear, 2000, p.file, "t"), ProfileRangeError);
}

TEST_F(step_profile, RefusesMalformedTablesNamingTheJsonPath) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string s = kHandMade;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  EXPECT_EQ(error_of(kHandMade), "");
  EXPECT_NE(error_of(with(R"("label": "made up for the test",)", "")).find("/label"), std::string::npos);
  EXPECT_NE(error_of(with(R"("batch": [1, 3])", R"("batch": [3, 1])")).find("/decode/0/batch/1: expected points in increasing order"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"("batch": [1, 3])", R"("batch": [0, 3])")).find("/decode/0/batch/0"), std::string::npos);
  EXPECT_NE(error_of(with("[0.020, 0.024, 0.032]", "[0.020, 0.024]")).find("/decode/0/token_s/1"), std::string::npos);
  EXPECT_NE(error_of(with("[0.020, 0.024, 0.032]", "[0.020, -1, 0.032]")).find("/decode/0/token_s/1/1"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"("linear_layer_s": [1e-4, 2e-4])", R"("linear_layer_s": [1e-4])")).find("/prefill/0/linear_layer_s"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"("group_gpus": 32)", R"("group_gpus": 0)")).find("/decode/0/group_gpus"), std::string::npos);
  EXPECT_NE(error_of(with(R"("group_gpus": 32)", R"("group_gpus": 32, "extra": 1)")).find("/decode/0/extra: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"name": "x", "label": "y", "prefill": [], "decode": []})").find("/prefill: expected a non-empty"),
            std::string::npos);
  EXPECT_NE(error_of(with(R"("name": "hand-made",)", R"("name": "hand-made", "extra": 1,)")).find("/extra: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("[1]").find("expected an object"), std::string::npos);
}

// A scenario on a profile: it loads, `check` refuses a profile without the scenario's group sizes, and a missing
// file or a profile path without timing = profile is named.
TEST_F(step_profile, ScenarioNeedsTablesForItsGroupSizes) {
  const std::string prof = write("p.json", kHandMade);
  const std::string scenario = kData + "/scenarios/ds660b-2p4d.json";
  const Scenario s = load_scenario(scenario, {"model.timing=profile", "model.profile=" + prof});
  EXPECT_EQ(s.model.timing, StepTiming::Profile);
  ASSERT_TRUE(s.model.profile);
  try {
    check_step_profile(s);  // prefill groups of 16 and decode groups of 32: both present
  } catch (const InputError& e) {
    FAIL() << e.what();
  }
  const Scenario other = load_scenario(scenario, {"model.timing=profile", "model.profile=" + prof,
                                                  "deployment.de_group_gpus=16"});
  try {
    check_step_profile(other);
    FAIL() << "no decode table for EP16";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no decode table for the scenario's decode groups of 16 GPUs (it has groups of 32)"),
              std::string::npos) << e.what();
  }
  EXPECT_THROW(load_scenario(scenario, {"model.timing=profile"}), InputError);  // which profile?
  EXPECT_THROW(load_scenario(scenario, {"model.timing=profile", "model.profile=" + prof + ".missing"}), InputError);
  EXPECT_THROW(load_scenario(scenario, {"model.timing=measured"}), InputError);
}

// The roofline written as a profile reads back as the roofline: on its grid points exactly, between them within
// the interpolation error of its bends (well under 1% at the shapes the bundled workloads reach).
TEST_F(step_profile, RooflineWrittenAsAProfileGivesTheRooflinesTimes) {
  const ModelSpec m = load_model(kData + "/models/deepseek-v3.2-660b.json");
  const Topology t = load_topology(kData + "/topologies/hopper-8gpu-80g.json");
  const CostModel roofline(m, t.gpu, EpNetwork::of(t));
  std::ofstream(dir_ / "r.json") << roofline_profile(roofline, t, {16}, {32}, "roofline").dump();
  ModelSpec pm = m;
  pm.timing = StepTiming::Profile;
  pm.profile = std::make_shared<const StepProfile>(read_step_profile((dir_ / "r.json").string()));
  const CostModel profiled(pm, t.gpu, EpNetwork::of(t));
  const GroupShape de = GroupShape::of(32, 8);
  for (double b : {1.0, 8.0, 16.0, 45.0, 128.0})
    for (double c : {4096.0, 32768.0})
      EXPECT_NEAR(decode_point(profiled, de, b, c).step / decode_point(roofline, de, b, c).step, 1.0, 1e-9) << b << " " << c;
  for (double b : {5.5, 23.0, 100.0})
    for (double c : {3000.0, 40000.0})
      EXPECT_NEAR(decode_point(profiled, de, b, c).step / decode_point(roofline, de, b, c).step, 1.0, 0.01) << b << " " << c;
  for (int64_t cached : {0, 2100, 30000, 50000})
    for (int64_t fresh : {100, 300, 700, 14357})
      EXPECT_NEAR(profiled.prefill_attention(cached, fresh, 16) / roofline.prefill_attention(cached, fresh, 16), 1.0, 0.01)
          << cached << " + " << fresh;
  for (double tokens : {300.0, 5000.0, 16384.0})
    EXPECT_NEAR(profiled.prefill_linear(tokens, 16) / roofline.prefill_linear(tokens, 16), 1.0, 0.01) << tokens;
}
