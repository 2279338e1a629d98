// dualpath_gpu_check: runs the GPU calibration (hw/gpu/gpu_calibrate) for one scenario's model and GPU, prints
// a table of measured vs predicted per-layer times, and writes the raw JSON and an overlay file that
// `dualpath run --overlay` applies. A standalone tool so hw/gpu-check.sh needs no change to the CLI.
// Exit 0 on success, 1 when no GPU is usable (the reason is printed), 2 on bad input.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/config/loader.hpp"
#include "hw/gpu/compute_device.hpp"
#include "hw/gpu/gpu_calibrate.hpp"

namespace {

void write_json(const std::string& path, const nlohmann::json& j) {
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GPU calibration for the hardware backend: copy bandwidth and per-layer kernel times vs the cost model"};
  std::string scenario_path, out_path, overlay_path;
  std::vector<std::string> sets;
  dualpath::hw::GpuCalibrateOptions o;
  bool quick = false;
  app.add_option("scenario", scenario_path, "scenario file (its model and topology.gpu are used)")->required();
  app.add_option("--set", sets, "override a scenario field, as for dualpath run");
  app.add_option("--device", o.device, "CUDA device ordinal");
  app.add_option("--repeats", o.kernel_repeats, "timed repeats per shape (median)");
  app.add_option("--out", out_path, "write the calibration JSON here");
  app.add_option("--overlay", overlay_path, "write an overlay file (dualpath run --overlay) here");
  app.add_flag("--quick", quick, "a small grid and 64 MiB copies (smoke test)");
  CLI11_PARSE(app, argc, argv);

  dualpath::Scenario sc;
  try {
    sc = dualpath::load_scenario(scenario_path, sets);
  } catch (const std::exception& e) {
    std::cerr << "dualpath_gpu_check: " << e.what() << "\n";
    return 2;
  }
  if (quick) {
    o.copy_bytes = size_t{64} << 20;
    o.prefill_tokens = {1024};
    o.prefill_cached = {0, 8192};
    o.decode_batch = {64};
    o.decode_context = {8192};
  }
  o.group_gpus = sc.deployment.pe_group_gpus;

  nlohmann::json cal;
  try {
    cal = dualpath::hw::calibrate_gpu(sc.model, sc.topology.gpu, o);
  } catch (const std::exception& e) {
    std::cerr << "dualpath_gpu_check: GPU calibration failed: " << e.what() << "\n";
    return 1;
  }
  if (!out_path.empty()) write_json(out_path, cal);
  if (!cal.value("available", false)) {
    std::cerr << "dualpath_gpu_check: no usable GPU: " << cal.value("reason", std::string("?")) << "\n";
    return 1;
  }

  const auto& copy = cal["copy"];
  std::printf("GPU: %s   model: %s\n", cal["device"].get<std::string>().c_str(), sc.model.name.c_str());
  std::printf("pinned H2D %.2f GB/s, D2H %.2f GB/s (topology.pcie_bw in the scenario: %.2f GB/s)\n",
              copy["h2d_bytes_per_s"].get<double>() / 1e9, copy["d2h_bytes_per_s"].get<double>() / 1e9,
              sc.topology.pcie_bw / 1e9);
  std::printf("%-8s %7s %7s | %10s %10s %6s | %10s %10s %6s\n", "phase", "tok/bat", "cached", "linear ms", "model ms",
              "ratio", "attn ms", "model ms", "ratio");
  for (const auto& p : cal["grid"]) {
    const bool prefill = p["phase"] == "prefill";
    const double ml = p["measured_linear_s"].get<double>() * 1e3, pl = p["predicted_linear_s"].get<double>() * 1e3;
    const double ma = p["measured_attention_s"].get<double>() * 1e3,
                 pa = p["predicted_attention_s"].get<double>() * 1e3;
    std::printf("%-8s %7lld %7lld | %10.3f %10.3f %6.2f | %10.3f %10.3f %6.2f\n",
                p["phase"].get<std::string>().c_str(),
                static_cast<long long>(p[prefill ? "fresh_tokens" : "batch"].get<int64_t>()),
                static_cast<long long>(p[prefill ? "cached_tokens" : "context"].get<int64_t>()), ml, pl,
                pl > 0 ? ml / pl : 0.0, ma, pa, pa > 0 ? ma / pa : 0.0);
  }
  std::printf("overrides: %s\n", cal["overrides"].dump().c_str());
  if (!overlay_path.empty()) {
    write_json(overlay_path, dualpath::hw::gpu_overlay(cal, "GPU calibration (dualpath_gpu_check) of " +
                                                                sc.model.name + " on " +
                                                                cal["device"].get<std::string>()));
    std::printf("overlay written to %s\n", overlay_path.c_str());
  }
  return 0;
}
