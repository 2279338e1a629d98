#include "hw/gpu/gpu_calibrate.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "core/cost/cost_model.hpp"
#include "core/cost/profile_writer.hpp"
#include "hw/gpu/compute_device.hpp"
#include "hw/gpu/layer_shapes.hpp"
#ifdef DUALPATH_HAVE_CUDA
#include "hw/gpu/cuda_internal.hpp"
#endif

namespace dualpath::hw {

namespace {

ComputeWork point_work(const KernelPoint& p) {
  ComputeWork w;
  w.layers = 1;
  w.steps = 1;
  w.decode = p.phase == "decode";
  w.linear_tokens = static_cast<double>(p.tokens);
  if (w.decode)
    w.seqs.assign(static_cast<size_t>(p.tokens), SeqShape{p.cached, 1});
  else
    w.seqs.push_back(SeqShape{p.cached, p.tokens});
  return w;
}

std::string rate_text(double bytes_per_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GB/s", bytes_per_s / 1e9);
  return buf;
}

}  // namespace

std::vector<KernelPoint> calibration_grid(const ModelSpec& model, const GpuSpec& gpu, const GpuCalibrateOptions& o) {
  const CostModel cost(model, gpu);
  const double weights = cost.weight_bytes_per_gpu(o.group_gpus);
  const double hbm = gpu.hbm_bw * model.hbm_efficiency;
  const double lin_rate = gpu.flops * model.linear_efficiency;
  const double attn_rate = gpu.flops * model.attention_efficiency;
  std::vector<KernelPoint> points;
  auto finish = [&](KernelPoint p) {
    const LayerShapes shapes = layer_shapes(model, point_work(p));
    p.linear_flops = shapes.linear_flops();
    p.attention_flops = shapes.attention_flops();
    const double tokens = static_cast<double>(p.tokens);
    p.predicted_linear = cost.linear_layer_time(tokens, weights);
    p.linear_compute_bound = tokens * cost.linear_flops_per_token_layer() / lin_rate >= weights / model.n_layers / hbm;
    if (p.phase == "prefill") {
      p.predicted_attention = cost.attention_layer_time(p.cached, p.tokens);
      p.attention_compute_bound =
          cost.attention_layer_flops(p.cached, p.tokens) / attn_rate >=
          static_cast<double>(p.cached + p.tokens) * model.kv_bytes_per_token_one_layer() / hbm;
    } else {
      const double ctx = static_cast<double>(p.cached);
      const double capped = model.sparse_topk > 0 ? std::min(ctx, static_cast<double>(model.sparse_topk)) : ctx;
      p.predicted_attention = cost.decode_attention_layer_time(tokens * ctx, tokens * capped, p.tokens);
      // Same split as decode_attention_layer_time: bytes of the attended KV (and indexer keys) vs FLOPs.
      double bytes = tokens * capped * model.kv_bytes_per_token_layer;
      double flops = tokens * capped * model.attn_flops_per_query_key;
      if (model.indexer_flops_per_query_key > 0) {
        bytes += tokens * ctx * model.indexer_bytes_per_token_layer;
        flops += tokens * ctx * model.indexer_flops_per_query_key;
      }
      p.attention_compute_bound = flops / attn_rate >= bytes / hbm;
    }
    points.push_back(p);
  };
  for (int64_t t : o.prefill_tokens)
    for (int64_t c : o.prefill_cached) finish(KernelPoint{"prefill", t, c});
  for (int64_t b : o.decode_batch)
    for (int64_t c : o.decode_context) finish(KernelPoint{"decode", b, c});
  return points;
}

nlohmann::json fit_overrides(const std::vector<KernelPoint>& points, double peak_flops, double h2d_bytes_per_s) {
  // Sum of FLOPs over sum of time: the big shapes, which dominate a serving run's compute, weigh the most.
  auto fit = [&](bool linear) {
    double flops = 0, seconds = 0;
    for (int pass = 0; pass < 2 && seconds <= 0; ++pass) {
      for (const auto& p : points) {
        const bool bound = linear ? p.linear_compute_bound : p.attention_compute_bound;
        if (pass == 0 ? !bound : p.phase != "prefill") continue;
        flops += linear ? p.linear_flops : p.attention_flops;
        seconds += linear ? p.measured_linear : p.measured_attention;
      }
    }
    if (seconds <= 0 || flops <= 0 || peak_flops <= 0) return 0.0;
    return std::clamp(flops / (peak_flops * seconds), 1e-3, 1.0);
  };
  nlohmann::json set = nlohmann::json::object();
  if (const double e = fit(true); e > 0) set["model.linear_efficiency"] = e;
  if (const double e = fit(false); e > 0) set["model.attention_efficiency"] = e;
  if (h2d_bytes_per_s > 0) set["topology.pcie_bw"] = rate_text(h2d_bytes_per_s);
  return set;
}

nlohmann::json calibrate_gpu(const ModelSpec& model, const GpuSpec& gpu, const GpuCalibrateOptions& o) {
  const std::string why = cuda_unusable_reason(o.device);
  if (!why.empty()) return {{"available", false}, {"reason", why}};
#ifdef DUALPATH_HAVE_CUDA
  nlohmann::json out;
  out["available"] = true;
  const cuda::CopyRates copies = cuda::copy_rates(o.device, o.copy_bytes, o.copy_repeats);
  out["device"] = copies.device_name;
  out["copy"] = {{"bytes", o.copy_bytes}, {"repeats", o.copy_repeats}, {"pinned", true},
                 {"h2d_bytes_per_s", copies.h2d}, {"d2h_bytes_per_s", copies.d2h}};
  std::vector<KernelPoint> points = calibration_grid(model, gpu, o);
  nlohmann::json grid = nlohmann::json::array();
  for (auto& p : points) {
    const LayerShapes shapes = layer_shapes(model, point_work(p));
    p.measured_linear = shapes.linear.empty() ? 0 : cuda::time_gemms(o.device, shapes.linear, o.kernel_repeats);
    p.measured_attention =
        shapes.attention.empty() ? 0 : cuda::time_gemms(o.device, shapes.attention, o.kernel_repeats);
    grid.push_back({{"phase", p.phase},
                    {p.phase == "prefill" ? "fresh_tokens" : "batch", p.tokens},
                    {p.phase == "prefill" ? "cached_tokens" : "context", p.cached},
                    {"linear_flops", p.linear_flops},
                    {"attention_flops", p.attention_flops},
                    {"measured_linear_s", p.measured_linear},
                    {"predicted_linear_s", p.predicted_linear},
                    {"linear_compute_bound", p.linear_compute_bound},
                    {"measured_attention_s", p.measured_attention},
                    {"predicted_attention_s", p.predicted_attention},
                    {"attention_compute_bound", p.attention_compute_bound}});
  }
  out["grid"] = grid;
  out["model"] = model.name;
  out["peak_flops"] = gpu.flops;
  out["kernels"] = "cuBLAS BF16 GEMMs, FP32 accumulate; attention unfused (scores through HBM)";
  out["overrides"] = fit_overrides(points, gpu.flops, copies.h2d);
  return out;
#else
  (void)model, (void)gpu;
  return {{"available", false}, {"reason", "built without CUDA"}};
#endif
}

nlohmann::json measure_step_profile(const ModelSpec& model, const Topology& topology, int pe_group, int de_group,
                                    const GpuCalibrateOptions& o) {
  const std::string why = cuda_unusable_reason(o.device);
  if (!why.empty()) return {{"available", false}, {"reason", why}};
#ifdef DUALPATH_HAVE_CUDA
  const CostModel cost(model, topology.gpu, EpNetwork::of(topology));
  auto timed = [&](const ComputeWork& w, bool attention) {
    const LayerShapes shapes = layer_shapes(model, w);
    const auto& gemms = attention ? shapes.attention : shapes.linear;
    return gemms.empty() ? 0.0 : cuda::time_gemms(o.device, gemms, o.kernel_repeats);
  };
  auto work = [&](double linear_tokens, int group) {
    ComputeWork w;
    w.layers = 1, w.steps = 1, w.linear_tokens = linear_tokens;
    w.weight_bytes_per_gpu = cost.weight_bytes_per_gpu(group);
    return w;
  };
  ProfileTimes times;
  times.prefill_attention = [&](int64_t cached, int64_t fresh, int g) {
    ComputeWork w = work(0, g);
    w.seqs.push_back(SeqShape{cached, fresh});
    return std::max(1e-9, timed(w, true));
  };
  times.prefill_linear = [&](double tokens, int g) { return std::max(1e-9, timed(work(tokens, g), false)); };
  times.decode_token = [&](double batch, double context, int g) {
    ComputeWork w = work(batch * (1 + model.mtp_depth), g);
    w.decode = true;
    w.seqs.assign(static_cast<size_t>(batch), SeqShape{static_cast<int64_t>(context), 1 + model.mtp_depth});
    const int nodes = (g + topology.gpus_per_node - 1) / topology.gpus_per_node;
    const double layer = timed(w, true) + timed(w, false) + cost.decode_ep_layer_time(batch * (1 + model.mtp_depth), nodes);
    return std::max(1e-9, model.decode_layers_per_token() * layer);
  };
  const std::string device = cuda::copy_rates(o.device, size_t{1} << 20, 1).device_name;
  return {{"available", true},
          {"device", device},
          {"profile", write_step_profile(model.name + " on " + device + " (measured)",
                                         "measured by dualpath hw calibrate on " + device +
                                             ": cuBLAS kernels of the CUDA body per layer; the decode all-to-all from "
                                             "the cost model (one GPU cannot measure the network)",
                                         "Measured step times (dualpath hw calibrate --profile).", {pe_group}, {de_group},
                                         ProfileAxes::coarse(), times)}};
#else
  (void)model, (void)topology, (void)pe_group, (void)de_group;
  return {{"available", false}, {"reason", "built without CUDA"}};
#endif
}

nlohmann::json gpu_overlay(const nlohmann::json& calibration, const std::string& description) {
  if (!calibration.value("available", false))
    throw std::runtime_error("no GPU calibration to write: " + calibration.value("reason", std::string("unknown")));
  nlohmann::json measured = calibration;
  measured.erase("overrides");
  return {{"overlay", 1}, {"description", description}, {"measured", measured}, {"set", calibration["overrides"]}};
}

}  // namespace dualpath::hw
