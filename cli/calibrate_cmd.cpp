// dualpath calibrate SCENARIO FILE... -o CAL.json: fit a calibration of the scenario's cluster to serving-benchmark
// result files (SGLang bench_serving JSONL, vLLM bench serve --save-result JSON), print each point's residual and
// write the calibration file (docs/calibration.md, "Your own cluster"). The fit is core/calibrate/fit.hpp.
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/scenario_options.hpp"
#include "core/calibrate/bench_results.hpp"
#include "core/calibrate/fit.hpp"
#include "core/config/loader.hpp"
#include "core/config/output_file.hpp"

namespace dualpath::cli {

void register_calibrate_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Fit a cluster calibration (fixed costs) to serving-benchmark result files and write it");
  struct Args {
    std::string scenario, out, name = "my-cluster", format = "auto";
    std::vector<std::string> files, overrides, overlays;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("scenario", args->scenario,
                  "Scenario naming the model, hardware and group sizes the benchmark ran on")->required();
  cmd->add_option("files", args->files,
                  "Result files: sglang.bench_serving --output-file (.jsonl) or vllm bench serve --save-result (.json)")
      ->required();
  add_scenario_options(cmd, args->overrides, args->overlays, "Override a field: path=value");
  cmd->add_option("-o,--out", args->out, "The calibration file to write")->required();
  cmd->add_option("--name", args->name, "The calibration's name (default my-cluster)");
  cmd->add_option("--format", args->format, "auto (by extension: .jsonl is SGLang), sglang or vllm")
      ->check(CLI::IsMember({"auto", "sglang", "vllm"}));
  cmd->callback([args] {
    const Scenario sc = load_scenario(args->scenario, args->overrides, args->overlays);
    const BenchFormat format = args->format == "sglang" ? BenchFormat::Sglang
                               : args->format == "vllm" ? BenchFormat::Vllm
                                                        : BenchFormat::Auto;
    std::vector<BenchPoint> points;
    for (const auto& f : args->files) {
      auto more = read_bench_results(f, format);
      points.insert(points.end(), more.begin(), more.end());
    }
    if (args->name.empty() ||
        args->name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
      throw InputError("--name " + args->name, "expected letters, digits, '.', '_' or '-'");
    check_output_file(args->out, "--out", args->files);
    const CalibrationFit fit = fit_calibration(sc, points);
    const nlohmann::json doc = calibration_document(sc, fit, args->name, args->files);
    write_text_atomically(args->out, doc.dump(2) + "\n");
    std::cout << "calibration " << args->name << " of " << sc.model.name << " on " << sc.topology.name << " from "
              << points.size() << " point(s); base " << sc.calibration.name << "\n"
              << std::fixed << std::setprecision(2) << "  decode_request " << fit.costs.decode_request * 1e6
              << " us, decode_layer " << fit.costs.decode_layer * 1e6 << " us"
              << (fit.decode_layer_fitted ? "" : " (not fitted: one batch size)") << ", prefill_layer "
              << fit.costs.prefill_layer * 1e6 << " us\n";
    std::cout << "  point                              in-flight  per GPU   TPOT meas/model (ms)   TTFT meas/model (ms)\n";
    for (const PointFit& p : fit.points) {
      std::cout << "  " << std::left << std::setw(34) << p.point.where << std::right << std::setw(9)
                << std::setprecision(1) << p.point.concurrency << std::setw(9) << std::setprecision(3) << p.batch_per_gpu
                << std::setw(11) << std::setprecision(2) << p.point.tpot * 1e3 << " /" << std::setw(7)
                << p.tpot_model * 1e3 << std::setw(12) << p.point.ttft * 1e3 << " /" << std::setw(8)
                << p.ttft_model * 1e3 << (p.fits_prefill ? "  (fits prefill)" : "") << "\n";
    }
    std::cout << "wrote " << args->out << " (use: --calibration " << args->out << ")\n";
  });
}

}  // namespace dualpath::cli
