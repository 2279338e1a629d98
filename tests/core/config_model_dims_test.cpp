// The optional kernel dimensions of a model (hidden_size, attn_heads, kv_heads, head_dim, v_head_dim): read
// strictly, checked against attn_flops_per_query_key, defaulted to 0, echoed by scenario_to_json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kData = DUALPATH_DATA_DIR;

// The bundled Qwen model with `patch` merged in, written to a temporary file.
std::string qwen_with(const nlohmann::json& patch) {
  std::ifstream in(kData + "/models/qwen2.5-32b.json");
  nlohmann::json m = nlohmann::json::parse(in);
  m.merge_patch(patch);
  const fs::path p = fs::temp_directory_path() / ("dualpath_model_dims_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << m.dump();
  return p.string();
}

TEST(config_model_dims, BundledModelsCarryConsistentDims) {
  const auto ds = dualpath::load_model(kData + "/models/deepseek-v3.2-660b.json");
  EXPECT_EQ(ds.hidden_size, 7168);
  EXPECT_EQ(ds.attn_heads, 128);
  EXPECT_EQ(ds.kv_heads, 1);
  EXPECT_EQ(2.0 * ds.attn_heads * (ds.head_dim + ds.v_head_dim), ds.attn_flops_per_query_key);
  const auto qwen = dualpath::load_model(kData + "/models/qwen2.5-32b.json");
  EXPECT_EQ(qwen.kv_heads, 8);
  const auto small = dualpath::load_model(kData + "/models/ds-27b.json");
  EXPECT_EQ(2.0 * small.attn_heads * (small.head_dim + small.v_head_dim), small.attn_flops_per_query_key);
}

TEST(config_model_dims, AbsentMeansZero) {
  const auto m = dualpath::load_model(qwen_with({{"hidden_size", nullptr}, {"attn_heads", nullptr},
                                                 {"kv_heads", nullptr}, {"head_dim", nullptr},
                                                 {"v_head_dim", nullptr}}));
  EXPECT_EQ(m.hidden_size + m.attn_heads + m.kv_heads + m.head_dim + m.v_head_dim, 0);
}

TEST(config_model_dims, InconsistentDimsAreRejected) {
  try {
    dualpath::load_model(qwen_with({{"head_dim", 96}}));
    FAIL() << "expected InputError";
  } catch (const dualpath::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("attn_flops_per_query_key"), std::string::npos) << e.what();
  }
  EXPECT_THROW(dualpath::load_model(qwen_with({{"kv_heads", 7}})), dualpath::InputError);
  EXPECT_THROW(dualpath::load_model(qwen_with({{"hidden_size", -1}})), dualpath::InputError);
}

}  // namespace
