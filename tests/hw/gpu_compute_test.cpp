// GPU compute without a GPU: the kernel shapes cost what the cost model charges (dense and DSA, prefill and
// decode), big GEMMs split without losing FLOPs, the device factory falls back to emulation with a reason and
// refuses --compute cuda, and the calibration fit recovers a known efficiency.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "core/config/loader.hpp"
#include "core/cost/cost_model.hpp"
#include "hw/gpu/compute_device.hpp"
#include "hw/gpu/gpu_calibrate.hpp"
#include "hw/gpu/layer_shapes.hpp"

namespace dualpath::hw {
namespace {

ModelSpec model(const char* file) { return load_model(std::string(DUALPATH_DATA_DIR) + "/models/" + file); }

GpuSpec h200() { return GpuSpec{989e12, 141e9, 4.8e12}; }

void expect_near_rel(double got, double want, double rel, const std::string& what) {
  EXPECT_NEAR(got, want, rel * want) << what << ": got " << got << ", want " << want;
}

// The FLOPs of the shapes of one layer vs the cost model's for the same work.
void check_work(const ModelSpec& m, const ComputeWork& w, const std::string& what) {
  const CostModel cost(m, h200());
  const LayerShapes s = layer_shapes(m, w);
  double attn = 0;
  for (const auto& q : w.seqs) attn += cost.attention_layer_flops(q.cached, q.fresh);
  expect_near_rel(s.attention_flops(), attn, 0.01, m.name + " attention " + what);
  expect_near_rel(s.linear_flops(), w.linear_tokens * cost.linear_flops_per_token_layer(), 0.01,
                  m.name + " linear " + what);
}

class ShapesPerModel : public ::testing::TestWithParam<const char*> {};

TEST_P(ShapesPerModel, PrefillFlopsMatchCostModel) {
  const ModelSpec m = model(GetParam());
  for (int64_t cached : {0, 1000, 8192, 32768, 100000}) {
    for (int64_t fresh : {1, 17, 256, 1024, 4096}) {
      ComputeWork w;
      w.layers = 1;
      w.linear_tokens = static_cast<double>(fresh);
      w.seqs = {SeqShape{cached, fresh}};
      check_work(m, w, "prefill cached " + std::to_string(cached) + " fresh " + std::to_string(fresh));
    }
  }
  // A mixed batch: several sequences in one power-of-two bucket and across buckets.
  ComputeWork w;
  w.layers = 1;
  w.seqs = {{0, 3000}, {50000, 2100}, {7000, 700}, {120000, 64}, {300, 65}, {9000, 100}};
  w.linear_tokens = 3000 + 2100 + 700 + 64 + 65 + 100;
  check_work(m, w, "mixed batch");
}

TEST_P(ShapesPerModel, DecodeFlopsMatchCostModel) {
  const ModelSpec m = model(GetParam());
  for (int64_t batch : {1, 8, 64, 256}) {
    for (int64_t ctx : {1500, 8192, 32768}) {
      ComputeWork w;
      w.decode = true;
      w.layers = 1;
      w.linear_tokens = static_cast<double>(batch);
      for (int64_t i = 0; i < batch; ++i) w.seqs.push_back(SeqShape{ctx + 37 * i, 1});
      check_work(m, w, "decode batch " + std::to_string(batch) + " ctx " + std::to_string(ctx));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BundledModels, ShapesPerModel,
                         ::testing::Values("deepseek-v3.2-660b.json", "ds-27b.json", "qwen2.5-32b.json"));

TEST(LayerShapes, SparseAttentionCapsKeysAtTopK) {
  const ModelSpec m = model("deepseek-v3.2-660b.json");
  ComputeWork w;
  w.seqs = {SeqShape{100000, 1}};
  const LayerShapes s = layer_shapes(m, w);
  ASSERT_EQ(s.attention.size(), 3u);  // qk, pv, indexer
  EXPECT_EQ(s.attention[0].what, "qk");
  EXPECT_EQ(s.attention[0].n, 2048);  // top-k keys, not the 100,001 of the context
  EXPECT_EQ(s.attention[0].m, 128);   // 128 heads share the one MLA latent
  EXPECT_EQ(s.attention[0].k, 576);
  EXPECT_EQ(s.attention[2].what, "indexer");
  EXPECT_EQ(s.attention[2].n, 100001);  // the indexer scores every key
  EXPECT_TRUE(s.linear.empty());        // no linear tokens given
}

TEST(LayerShapes, DerivedDimsWithoutModelFields) {
  ModelSpec m = model("qwen2.5-32b.json");
  m.hidden_size = m.attn_heads = m.kv_heads = m.head_dim = m.v_head_dim = 0;
  const KernelDims d = kernel_dims(m);
  EXPECT_EQ(d.qk_dim, 128);
  EXPECT_EQ(d.heads, 40);  // 20,480 / (2 x 256)
  EXPECT_EQ(d.hidden % 128, 0);
  ComputeWork w;
  w.linear_tokens = 999.5;  // rounded up to 1000 rows
  w.seqs = {SeqShape{4096, 512}};
  const LayerShapes s = layer_shapes(m, w);
  EXPECT_EQ(s.linear[0].m, 1000);
  check_work(m, [&] {
    ComputeWork v = w;
    v.linear_tokens = 1000;
    return v;
  }(), "derived dims");
}

TEST(LayerShapes, SplitToFitKeepsFlopsAndLimit) {
  const std::vector<Gemm> cases = {{"a", 1, 1000, 1000, 1000},       {"b", 300, 128, 2048, 576},
                                   {"c", 1, 524288, 36000, 576},     {"d", 7, 4096, 131072, 128},
                                   {"e", 1, 3, 5, 7}};
  for (const auto& g : cases) {
    for (double limit : {1e5, 1e6, 5.12e8}) {
      double flops = 0;
      for (const auto& p : split_to_fit(g, limit)) {
        EXPECT_LE(p.gemm.a_elems(), std::max(limit, static_cast<double>(g.k)));
        EXPECT_LE(p.gemm.b_elems(), std::max(limit, static_cast<double>(g.k)));
        EXPECT_LE(p.gemm.c_elems(), limit);
        flops += p.gemm.flops() * static_cast<double>(p.repeat);
      }
      EXPECT_DOUBLE_EQ(flops, g.flops()) << g.what << " limit " << limit;
    }
  }
}

TEST(ComputeDevice, AutoFallsBackToEmulatedWithReason) {
  const ModelSpec m = model("ds-27b.json");
  auto dev = make_compute_device(m, ComputeOptions{});
  ASSERT_NE(dev, nullptr);
  if (dev->real()) GTEST_SKIP() << "a CUDA device is usable here: " << dev->name();
  EXPECT_EQ(dev->name().rfind("emulated (", 0), 0u) << dev->name();
  if (built_with_cuda())  // the CUDA runtime's error, e.g. cudaErrorNoDevice or cudaErrorInsufficientDriver
    EXPECT_NE(dev->name().find("cudaError"), std::string::npos) << dev->name();
  else
    EXPECT_NE(dev->name().find("built without CUDA"), std::string::npos) << dev->name();
  EXPECT_THROW(dev->run(ComputeWork{}, [](double, const std::string&) {}), std::logic_error);
  EXPECT_FALSE(cuda_unusable_reason(0).empty());
}

// cuBLAS is loaded on first use, not linked (issue 68: linked, it cost every command ~210 MB at start-up): a CUDA
// build finds the toolkit's library and binds every entry point it calls, GPU or not.
TEST(ComputeDevice, CublasLoadsOnDemand) {
  if (!built_with_cuda()) {
    EXPECT_EQ(cublas_unusable_reason(), "built without CUDA");
    return;
  }
  EXPECT_EQ(cublas_unusable_reason(), "");
}

TEST(ComputeDevice, CudaModeThrowsWithoutDevice) {
  const ModelSpec m = model("ds-27b.json");
  if (cuda_unusable_reason(0).empty()) GTEST_SKIP() << "a CUDA device is usable here";
  try {
    make_compute_device(m, ComputeOptions{ComputeMode::Cuda, 0});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no usable CUDA device"), std::string::npos) << what;
    EXPECT_NE(what.find(built_with_cuda() ? "cudaError" : "built without CUDA"), std::string::npos) << what;
  }
}

TEST(ComputeDevice, EmulatedOnRequestAndUnknownModeNamesRefused) {
  const ModelSpec m = model("ds-27b.json");
  auto dev = make_compute_device(m, ComputeOptions{ComputeMode::Emulated, 0});
  EXPECT_FALSE(dev->real());
  EXPECT_EQ(dev->name(), "emulated (requested)");
  // A mode is an enum from here on: only the names of its table are ever parsed (--compute checks them).
  EXPECT_EQ(choice_value(kComputeModes, "auto"), ComputeMode::Auto);
  EXPECT_THROW(choice_value(kComputeModes, "gpu"), std::invalid_argument);
}

TEST(GpuCalibrate, UnavailableWithoutDevice) {
  if (cuda_unusable_reason(0).empty()) GTEST_SKIP() << "a CUDA device is usable here";
  const auto j = calibrate_gpu(model("ds-27b.json"), h200());
  EXPECT_FALSE(j["available"].get<bool>());
  EXPECT_FALSE(j["reason"].get<std::string>().empty());
  EXPECT_THROW(gpu_overlay(j, "x"), std::runtime_error);
}

TEST(GpuCalibrate, FitRecoversEfficiency) {
  // Measured times made from known efficiencies (0.7 linear, 0.3 attention) give those efficiencies back.
  const ModelSpec m = model("qwen2.5-32b.json");
  const GpuSpec g = h200();
  auto points = calibration_grid(m, g, GpuCalibrateOptions{});
  ASSERT_EQ(points.size(), 15u);
  for (auto& p : points) {
    p.measured_linear = p.linear_flops / (g.flops * 0.7);
    p.measured_attention = p.attention_flops / (g.flops * 0.3);
  }
  const auto set = fit_overrides(points, g.flops, 55e9);
  EXPECT_NEAR(set["model.linear_efficiency"].get<double>(), 0.7, 1e-9);
  EXPECT_NEAR(set["model.attention_efficiency"].get<double>(), 0.3, 1e-9);
  EXPECT_EQ(set["topology.pcie_bw"].get<std::string>(), "55.00 GB/s");
  // The overlay the tool writes carries exactly these as its "set" map.
  nlohmann::json cal = {{"available", true}, {"overrides", set}, {"grid", nlohmann::json::array()}};
  const auto overlay = gpu_overlay(cal, "test");
  EXPECT_EQ(overlay["overlay"], 1);
  EXPECT_EQ(overlay["set"], set);
  EXPECT_FALSE(overlay["measured"].contains("overrides"));
}

}  // namespace
}  // namespace dualpath::hw
