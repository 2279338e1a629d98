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
#include "core/config/command_values.hpp"
#include "core/analysis/bandwidth_model.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"

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

void analyze(const AnalyzeArgs& a) {
  const Topology t = load_topology(a.topology);
  BandwidthParams p;
  p.g = t.gpus_per_node;
  p.B = t.cnic_bw;
  p.s = t.snic_bw / t.cnic_bw;
  p.M = t.dram_bw;
  p.pcie = t.pcie_bw;
  try {
    validate(p);
  } catch (const std::invalid_argument& e) {
    throw InputError(a.topology, e.what());
  }
  std::optional<Topology> de;
  if (!a.decode_topology.empty()) {
    de = load_topology(a.decode_topology);
    if (de->gpus_per_node != t.gpus_per_node)
      throw InputError(a.decode_topology, "expected gpus_per_node " + std::to_string(t.gpus_per_node) +
                                              " (the prefill topology's), found " + std::to_string(de->gpus_per_node));
    p.de_s = de->snic_bw / de->cnic_bw, p.de_B = de->cnic_bw, p.de_M = de->dram_bw, p.de_pcie = de->pcie_bw;
  }
  // A DE SNIC's share of the reads counts S_D/S prefill SNICs (best_read_mix's unit).
  const double de_weight = p.de().snic() / p.pe().snic();
  std::vector<std::pair<int, int>> pds;
  for (const auto& s : a.pds) pds.push_back(parse_pd_ratio(s));
  const BandwidthRange r = bottleneck_free_range(p);

  if (a.json) {
    nlohmann::json j;
    j["params"] = {{"g", p.g}, {"s", p.s}, {"B", p.B}, {"M", p.M}, {"pcie", p.pcie}, {"M_over_Bs", p.M / (p.B * p.s)}};
    if (de) j["params"]["decode"] = {{"topology", de->name}, {"s", p.de_s}, {"B", p.de_B}, {"M", p.de_M}, {"pcie", p.de_pcie}};
    j["range"] = {{"lower", r.lower}, {"upper", std::isfinite(r.upper) ? nlohmann::json(r.upper) : nlohmann::json()},
                  {"empty", r.empty}};
    for (auto l : r.binding_lower) j["range"]["binding_lower"].push_back(link_key(l));
    for (auto l : r.binding_upper) j["range"]["binding_upper"].push_back(link_key(l));
    for (auto l : r.violated_fixed) j["range"]["violated"].push_back(link_key(l));
    for (auto [P, D] : pds) {
      nlohmann::json e = {{"P", P}, {"D", D}, {"in_range", in_range(r, P, D)}};
      const auto loads = link_loads(p, P, D, 1, a.basic ? 0 : 1);
      for (const auto& l : loads) e["loads"][link_key(l.link)] = l.fraction;
      e["first_to_saturate"] = link_key(most_loaded(loads).link);
      const ReadMix mix = best_read_mix(p, P, D, !a.basic);
      e["max_read_rate_snics"] = mix.snics;
      e["best_mix"] = {{"x_pe", mix.x_pe}, {"x_de", mix.x_de}};
      j["pd"].push_back(e);
    }
    std::cout << j.dump(2) << "\n";
    return;
  }

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

  for (auto [P, D] : pds) {
    const auto loads = link_loads(p, P, D, 1, a.basic ? 0 : 1);
    const auto first = most_loaded(loads);
    std::cout << "\n" << P << "P" << D << "D (P/D = " << ratio(static_cast<double>(P) / D) << ", "
              << (in_range(r, P, D) ? "inside" : "OUTSIDE") << " the range), every "
              << (a.basic ? "PE SNIC saturated, Basic (no DE reads)" : "SNIC saturated") << ":\n";
    std::cout << std::left << std::setw(20) << "link" << std::right << std::setw(9) << "load" << std::setw(13)
              << "GB/s" << "   steps\n";
    for (const auto& l : loads)
      std::cout << std::left << std::setw(20) << link_name(l.link) << std::right << std::setw(9) << pct(l.fraction)
                << std::setw(13) << std::fixed << std::setprecision(2) << l.bytes_per_s / 1e9
                << std::defaultfloat << "   " << l.steps << (l.fraction > 1 + 1e-9 ? "   OVER CAPACITY" : "")
                << "\n";
    if (first.fraction <= 1 + 1e-9)
      std::cout << "no link over capacity: the SNICs are the bottleneck";
    else
      std::cout << "first to saturate: " << link_name(first.link) << " (" << pct(first.fraction) << ")";
    const ReadMix mix = best_read_mix(p, P, D, !a.basic);
    std::cout << "; sustainable hit-KV read rate " << std::setprecision(4) << mix.snics << " SNICs of "
              << (a.basic ? P : P + D) << " used\n";
    // The mix that attains it: the share of the reads each side should take (a path choice, or the split of
    // each read in dualpath-split, that reaches the cap has to produce these SNIC loads).
    if (!a.basic && mix.snics > 0)
      std::cout << "at SNIC utilisation PE " << pct(mix.x_pe) << ", DE " << pct(mix.x_de) << ": the DE path carries "
                << pct(D * de_weight * mix.x_de / mix.snics) << " of the hit KV (any mix of the two paths, per request or split "
                << "within requests, has this cap)\n";
  }
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
