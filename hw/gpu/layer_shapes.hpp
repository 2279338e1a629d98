// The GEMMs that stand in for one transformer layer of a ComputeWork on a real GPU (hw/gpu/cuda_device.cpp).
// Pure C++ so the shapes, and that they cost what the cost model charges, are tested without a GPU.
//
// Linear part: four GEMMs shaped like the attention projections and a gated FFN, M = the tokens each GPU's
// linear/MoE layers see, K or N = the model width, the other dimension chosen so 2 x M x K x N sums to the cost
// model's linear FLOPs (2 x active_params / n_layers per token). Attention part: per group of sequences with a
// similar query count, one batched Q.K^T and one batched P.V (and the DSA indexer's Q.K^T), with the key count
// set to the mean number of keys a query attends (causal, capped at the DSA top-k), so the FLOPs equal the cost
// model's attention_layer_flops. Attention is unfused: the scores matrix goes through HBM (see docs/hw.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"
#include "core/config/scenario.hpp"

namespace dualpath::hw {

// Row-major C[m x n] = A[m x k] . B[k x n], `batch` independent copies (strided), all BF16 with FP32 accumulate.
struct Gemm {
  std::string what;  // "qkv", "o", "ffn_up", "ffn_down", "qk", "pv", "indexer"
  int64_t batch = 1;
  int64_t m = 0, n = 0, k = 0;
  double flops() const { return 2.0 * static_cast<double>(batch) * static_cast<double>(m) * n * k; }
  // Elements of each operand over the whole batch.
  double a_elems() const { return static_cast<double>(batch) * m * k; }
  double b_elems() const { return static_cast<double>(batch) * k * n; }
  double c_elems() const { return static_cast<double>(batch) * m * n; }
};

// The dimensions the kernels use: the model's own (ModelSpec::hidden_size ...) or documented defaults.
struct KernelDims {
  int64_t hidden = 0;
  int64_t heads = 0, kv_heads = 0, qk_dim = 0, v_dim = 0;
  int64_t indexer_heads = 0, indexer_dim = 0;  // 0 heads = no indexer
};
KernelDims kernel_dims(const ModelSpec& model);

// One layer (one step when decoding) of `work`.
struct LayerShapes {
  std::vector<Gemm> linear;
  std::vector<Gemm> attention;
  double linear_flops() const;
  double attention_flops() const;
};
LayerShapes layer_shapes(const ModelSpec& model, const ComputeWork& work);

// A GEMM split so that no operand holds more than `max_elems` elements: `repeat` launches of `gemm` (the same
// buffers reused, as a kernel over a larger batch would stream them from HBM). Splits the batch first, then M,
// then N; the pieces' FLOPs sum to the original's.
struct GemmPiece {
  Gemm gemm;
  int64_t repeat = 1;
};
std::vector<GemmPiece> split_to_fit(const Gemm& gemm, double max_elems);

}  // namespace dualpath::hw
