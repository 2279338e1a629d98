// dualpath analyze bandwidth --topology FILE [--pd P:D]... [--basic] [--json]
// The paper's §4.2 traffic model (core/analysis/bandwidth_model.hpp) for a topology file: g = gpus_per_node,
// B = cnic_bw, s = snic_bw / cnic_bw, M = dram_bw (PCIe rows from pcie_bw). Prints the constraints, the
// bottleneck-free P/D range and the binding links, and for each --pd the load on every link with every SNIC
// saturated (x_D = 0 with --basic), the link that saturates first and the sustainable read rate.
// Bad input raises InputError (exit 2).
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/study/analyze_bandwidth.hpp"

namespace dualpath::cli {
namespace {

using namespace dualpath::analysis;

struct AnalyzeArgs {
  std::string topology;
  std::string decode_topology;  // the decode nodes' own hardware (mixed hardware, issue 65); "" = the topology's
  std::vector<std::string> pds;
  bool basic = false;
  bool json = false;
};

std::string ratio(double v) {
  if (!std::isfinite(v)) return "inf";
  // Show small rationals as fractions (1/7, 7/2) next to the decimal.
  for (int den = 1; den <= 16; ++den) {
    const double num = v * den;
    if (std::fabs(num - std::round(num)) < 1e-9 && std::round(num) != 0) {
      std::ostringstream o;
      o << static_cast<long long>(std::round(num));
      if (den > 1) o << "/" << den;
      return o.str();
    }
  }
  std::ostringstream o;
  o << std::setprecision(4) << v;
  return o.str();
}

std::string names(const std::vector<Link>& ls) {
  std::string out;
  for (auto l : ls) out += (out.empty() ? "" : " and ") + std::string(link_name(l));
  return out.empty() ? "-" : out;
}

std::string pct(double f) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << 100 * f << "%";
  return o.str();
}

// One P:D's link loads, what saturates first and the sustainable read rate, as a table.
void print_pd(const study::PdLoads& x, bool basic, double de_weight) {
  const int P = x.P, D = x.D;
  std::cout << "\n" << P << "P" << D << "D (P/D = " << ratio(static_cast<double>(P) / D) << ", "
            << (x.in_range ? "inside" : "OUTSIDE") << " the range), every "
            << (basic ? "PE SNIC saturated, Basic (no DE reads)" : "SNIC saturated") << ":\n";
  std::cout << std::left << std::setw(20) << "link" << std::right << std::setw(9) << "load" << std::setw(13) << "GB/s"
            << "   steps\n";
  for (const auto& l : x.loads)
    std::cout << std::left << std::setw(20) << link_name(l.link) << std::right << std::setw(9) << pct(l.fraction)
              << std::setw(13) << std::fixed << std::setprecision(2) << l.bytes_per_s / 1e9 << std::defaultfloat
              << "   " << l.steps << (l.fraction > 1 + 1e-9 ? "   OVER CAPACITY" : "") << "\n";
  if (x.first.fraction <= 1 + 1e-9)
    std::cout << "no link over capacity: the SNICs are the bottleneck";
  else
    std::cout << "first to saturate: " << link_name(x.first.link) << " (" << pct(x.first.fraction) << ")";
  const ReadMix& mix = x.mix;
  std::cout << "; sustainable hit-KV read rate " << std::setprecision(4) << mix.snics << " SNICs of "
            << (basic ? P : P + D) << " used\n";
  // The mix that attains it: the share of the reads each side should take (a path choice, or the split of each read
  // in dualpath-split, that reaches the cap has to produce these SNIC loads).
  if (!basic && mix.snics > 0)
    std::cout << "at SNIC utilisation PE " << pct(mix.x_pe) << ", DE " << pct(mix.x_de) << ": the DE path carries "
              << pct(D * de_weight * mix.x_de / mix.snics) << " of the hit KV (any mix of the two paths, per request or "
              << "split within requests, has this cap)\n";
}

void analyze(const AnalyzeArgs& a) {
  const study::BandwidthAnswer ans = study::analyze_bandwidth({a.topology, a.decode_topology, a.pds, a.basic});
  if (a.json) {
    std::cout << ans.to_json().dump(2) << "\n";
    return;
  }
  const Topology& t = ans.topology;
  const std::optional<Topology>& de = ans.decode;
  const BandwidthParams& p = ans.params;
  const BandwidthRange& r = ans.range;
  std::cout << "topology " << t.name << ": g = " << p.g << ", B = " << p.B * 8 / 1e9 << " Gbps, s = " << p.s
            << ", M = " << p.M / 1e9 << " GB/s (M/(B*s) = " << std::setprecision(4) << p.M / (p.B * p.s)
            << "), PCIe " << p.pcie / 1e9 << " GB/s\n";
  if (de)
    std::cout << "decode nodes on " << de->name << ": B = " << p.de_B * 8 / 1e9 << " Gbps, s = " << p.de_s
              << ", M = " << p.de_M / 1e9 << " GB/s, PCIe " << p.de_pcie / 1e9 << " GB/s (mixed hardware)\n";
  std::cout << "\n";
  const int fw = de ? 25 : 22;  // the mixed formulas are longer
  std::cout << std::left << std::setw(15) << "link" << std::setw(fw) << "constraint" << "value\n";
  for (const auto& c : r.constraints) {
    std::cout << std::left << std::setw(15) << link_name(c.link) << std::setw(fw) << c.formula;
    if (c.kind == Constraint::Fixed)
      std::cout << "load " << pct(c.bound) << (c.holds ? " (holds)" : " (VIOLATED)") << "\n";
    else
      std::cout << "P/D " << (c.kind == Constraint::Lower ? ">= " : "<= ") << ratio(c.bound)
                << (c.holds ? "" : " (no P/D)") << "\n";
  }
  std::cout << "\n";
  if (r.empty)
    std::cout << "bottleneck-free range: none"
              << (r.violated_fixed.empty() ? "" : " (" + names(r.violated_fixed) + " overflows at any P/D)") << "\n";
  else
    std::cout << "bottleneck-free range: " << ratio(r.lower) << " <= P/D <= " << ratio(r.upper) << "  ("
              << std::setprecision(4) << r.lower << " .. " << r.upper << ")\n"
              << "binding: lower " << names(r.binding_lower) << "; upper " << names(r.binding_upper) << "\n";
  for (const auto& x : ans.pds) print_pd(x, a.basic, ans.de_weight);
}

}  // namespace

void register_analyze_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("analyze", "Analytical models");
  cmd->require_subcommand(1);
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* bw = cmd->add_subcommand(
      "bandwidth", "The §4.2 traffic model: link loads with every SNIC saturated, the bottleneck-free P/D range");
  bw->add_option("--topology", args->topology, "Topology JSON file")->required();
  bw->add_option("--decode-topology", args->decode_topology,
                 "The decode nodes' own topology (mixed hardware): each side's own s, B, M and PCIe");
  bw->add_option("--pd", args->pds, "P:D to tabulate the link loads for (repeatable)");
  bw->add_flag("--basic", args->basic, "Basic policy: PE reads only (x_D = 0)");
  bw->add_flag("--json", args->json, "Machine-readable output");
  bw->callback([args] { analyze(*args); });
  register_analyze_cost(*cmd);
}

}  // namespace dualpath::cli
