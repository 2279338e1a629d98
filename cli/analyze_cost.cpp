// dualpath analyze cost --model FILE --topology FILE [--batch B]... [--context C] [--de-group N] [--pe-group N]
//                       [--prefill-tokens T --cached C --fresh F] [--public] [--profile FILE]
//                       [--write-profile FILE [--label TEXT] [--decode-scale K]] [--json]
// The cost model's steady state (core/cost/cost_table.hpp): a decode step of a full DE group for each batch size
// (requests per GPU), its parts per layer and tokens/s per user and per node; one prefill forward at a token
// batch and request shape; with --public every public measurement beside the model (core/cost/public_points.hpp),
// with --profile a step profile's figures beside the roofline's, and --write-profile writes the roofline's own
// step times as a profile (core/config/step_profile_file.hpp). docs/cost-model.md gives every constant and its source.
// Bad input: exit 2.
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/config/output_file.hpp"
#include "core/study/analyze_cost.hpp"

namespace dualpath::cli {
namespace {

struct CostArgs {
  std::string model, topology;
  std::vector<double> batches;
  double context = 32768;
  int de_group = 32, pe_group = 16;
  double prefill_tokens = 16384;
  int64_t cached = 28672, fresh = 4096;
  bool json = false;
  bool public_points = false;
  std::string profile, write_profile, label;
  double decode_scale = 1;
  std::string calibration;  // --calibration: the topology under a cluster calibration (docs/calibration.md)
};

double us(double s) { return s * 1e6; }

study::CostQuestion question_of(const CostArgs& a) {
  study::CostQuestion q;
  q.model = a.model, q.topology = a.topology, q.calibration = a.calibration, q.batches = a.batches;
  q.context = a.context, q.de_group = a.de_group, q.pe_group = a.pe_group, q.prefill_tokens = a.prefill_tokens;
  q.cached = a.cached, q.fresh = a.fresh, q.public_points = a.public_points, q.profile = a.profile;
  return q;
}

void write_profile(const CostArgs& a) {
  const study::CostQuestion q = question_of(a);
  study::check_cost_question(q);
  if (a.label.empty()) throw InputError("--label", "expected a label saying where the profile's times come from");
  if (!(a.decode_scale > 0) || !std::isfinite(a.decode_scale))
    throw InputError("--decode-scale", "expected a factor > 0, found " + std::to_string(a.decode_scale));
  const nlohmann::json profile = study::roofline_profile_of(q, a.label, a.decode_scale);
  check_output_file(a.write_profile, "--write-profile", {a.model, a.topology, a.profile});
  write_text_atomically(a.write_profile, profile.dump(1) + "\n");
  const ModelSpec m = load_model(a.model);
  const Topology t = load_topology(a.topology, a.calibration);
  std::cout << "wrote " << a.write_profile << ": roofline step times of " << m.name << " on " << t.name
            << " (prefill EP" << a.pe_group << ", decode EP" << a.de_group << ")"
            << (a.decode_scale != 1 ? ", decode times x" + std::to_string(a.decode_scale) : std::string()) << "\n";
}

void analyze_cost(const CostArgs& a) {
  if (!a.write_profile.empty()) return write_profile(a);
  const study::CostAnswer ans = study::analyze_cost(question_of(a));
  if (a.json) {
    std::cout << ans.to_json().dump(2) << "\n";
    return;
  }
  const ModelSpec& m = ans.model;
  const Topology& t = ans.topology;
  const GroupShape &de = ans.de, &pe = ans.pe;
  const auto& points = ans.points;
  const auto& profile_steps = ans.profile_steps;
  const PrefillPoint& pf = ans.prefill;
  const bool profiled = ans.profiled;
  const double profile_forward = ans.profile_forward;
  const auto& pub = ans.public_points;
  std::cout << m.name << " on " << t.name << "\n\ndecode: EP" << de.gpus << " over " << de.nodes << " node"
            << (de.nodes > 1 ? "s" : "") << ", every request at " << a.context << " tokens of context\n";
  if (m.mtp_depth > 0)
    std::cout << "MTP: " << m.mtp_depth << " draft token(s) at " << m.mtp_accept << " acceptance: "
              << m.tokens_per_decode_step() << " tokens per step; step ms is per generated token\n";
  std::cout << std::right << std::setw(7) << "batch" << std::setw(10) << "step ms" << "   per layer (us):"
            << std::setw(8) << "attn" << std::setw(8) << "dense" << std::setw(9) << "experts" << std::setw(9)
            << "kernels" << std::setw(8) << "EP" << std::setw(9) << "hidden" << std::setw(12) << "tok/s/user"
            << std::setw(12) << "tok/s/node" << (profile_steps.empty() ? "" : "  profile ms") << "\n";
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    std::cout << std::fixed << std::setw(7) << std::setprecision(0) << p.batch << std::setw(10)
              << std::setprecision(2) << p.step * 1e3 << "                    " << std::setprecision(1)
              << std::setw(8) << us(p.layer.attention) << std::setw(8) << us(p.layer.dense) << std::setw(9)
              << us(p.layer.experts) << std::setw(9) << us(p.layer.kernels) << std::setw(8) << us(p.layer.ep)
              << std::setw(9) << 0.0 - us(p.layer.hidden) /* never "-0.0" */ << std::setw(12) << p.tokens_per_user << std::setw(12)
              << std::setprecision(0) << p.tokens_per_node;
    if (i < profile_steps.size()) std::cout << std::setw(12) << std::setprecision(2) << profile_steps[i] * 1e3;
    std::cout << "\n";
  }
  if (profiled)
    std::cout << "profile: " << ans.profile_file << " (" << ans.profile_label << ")"
              << (profile_steps.empty() ? "; no decode table for EP" + std::to_string(de.gpus) : std::string()) << "\n";
  std::cout << "\nprefill: EP" << pe.gpus << " over " << pe.nodes << " node" << (pe.nodes > 1 ? "s" : "") << ", "
            << std::setprecision(0) << pf.tokens << " fresh tokens per GPU per forward, requests of " << pf.cached
            << " cached + " << pf.fresh << " fresh tokens\n"
            << "  per layer (us): attention " << std::setprecision(1) << us(pf.attention) << ", linear "
            << us(pf.linear) << ", EP all-to-all " << us(pf.ep) << (pf.ep_bound() ? " (binds)" : " (hidden)")
            << "\n  forward " << std::setprecision(3) << pf.forward << " s; per node " << std::setprecision(0)
            << pf.fresh_per_node << " computed tokens/s, " << pf.input_per_node << " prompt tokens/s\n";
  if (profile_forward >= 0)
    std::cout << "  profile: forward " << std::setprecision(3) << profile_forward << " s\n";
  if (pub.empty()) return;
  std::cout << "\npublic measurements beside the model (held: within the tolerance the calibration test holds)\n"
            << std::left << std::setw(22) << "point" << std::right << std::setw(12) << "measured" << std::setw(12)
            << "model" << std::setw(8) << "ratio" << std::setw(12) << (profiled ? "profile" : "") << "  unit        "
            << "held\n";
  for (const auto& p : pub) {
    std::cout << std::left << std::setw(22) << p.id << std::right << std::setprecision(p.unit == "tok/s/node" ? 0 : 1)
              << std::setw(12) << p.measured << std::setw(12) << p.model << std::setw(8) << std::setprecision(2)
              << p.ratio();
    if (profiled && p.profile >= 0)
      std::cout << std::setw(12) << std::setprecision(1) << p.profile;
    else
      std::cout << std::setw(12) << "";
    std::cout << "  " << std::left << std::setw(12) << p.unit << std::right
              << (p.held() ? (p.within() ? "yes, within " : "NO, outside ") + std::to_string(static_cast<int>(
                                                                                   std::lround(p.tolerance * 100))) + "%"
                           : std::string("no")) << "\n"
              << "    " << p.figure << "; " << p.source << (p.note.empty() ? "" : "; " + p.note) << "\n";
  }
}

}  // namespace

void register_analyze_cost(CLI::App& analyze) {
  auto args = std::make_shared<CostArgs>();
  CLI::App* c = analyze.add_subcommand(
      "cost", "The cost model's decode step (by part) over batch sizes and a prefill forward's throughput");
  c->add_option("--model", args->model, "Model JSON file")->required();
  c->add_option("--topology", args->topology, "Topology JSON file")->required();
  c->add_option("--batch", args->batches, "Decode requests per GPU (repeatable; default 1 8 16 32 64 128 256)");
  c->add_option("--context", args->context, "Context of every decoding request, tokens (default 32768)");
  c->add_option("--de-group", args->de_group, "GPUs of the decode EP group (default 32)");
  c->add_option("--pe-group", args->pe_group, "GPUs of the prefill EP group (default 16)");
  c->add_option("--prefill-tokens", args->prefill_tokens, "Fresh tokens per GPU per forward (default 16384)");
  c->add_option("--cached", args->cached, "Cached prefix of a prefill request, tokens (default 28672)");
  c->add_option("--fresh", args->fresh, "Fresh tokens of a prefill request (default 4096)");
  c->add_flag("--public", args->public_points,
              "Every public measurement (DeepEP, DeepSeek Day 6 and profile, SGLang, the paper's Table 3) beside the model");
  c->add_option("--profile", args->profile, "A step profile (docs/cost-model.md, 'Profiles') to show beside the roofline");
  c->add_option("--write-profile", args->write_profile,
                "Write the roofline's step times for --pe-group and --de-group as a profile and exit");
  c->add_option("--label", args->label, "With --write-profile: where its times come from (required)");
  c->add_option("--decode-scale", args->decode_scale,
                "With --write-profile: multiply every decode time by this factor (say so in --label)");
  c->add_flag("--json", args->json, "Machine-readable output");
  c->add_option("--calibration", args->calibration,
                "The topology under a cluster calibration: a bundled name (ideal, paper-cluster) or a file "
                "(docs/calibration.md)")->type_name("NAME|FILE");
  c->callback([args] { analyze_cost(*args); });
}

}  // namespace dualpath::cli
