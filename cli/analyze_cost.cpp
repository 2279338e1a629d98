// dualpath analyze cost --model FILE --topology FILE [--batch B]... [--context C] [--de-group N] [--pe-group N]
//                       [--prefill-tokens T --cached C --fresh F] [--json]
// The cost model's steady state (core/cost/cost_table.hpp): a decode step of a full DE group for each batch size
// (requests per GPU), its parts per layer and tokens/s per user and per node; one prefill forward at a token
// batch and request shape. docs/cost-model.md gives every constant and its source. Bad input: exit 2.
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/cost/cost_table.hpp"

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
};

GroupShape group_of(const std::string& flag, int gpus, const Topology& t) {
  if (gpus < 1) throw InputError(flag, "expected a group of at least 1 GPU, found " + std::to_string(gpus));
  if (gpus > t.gpus_per_node && gpus % t.gpus_per_node != 0)
    throw InputError(flag, "expected a multiple of the topology's " + std::to_string(t.gpus_per_node) +
                               " GPUs per node (or fewer), found " + std::to_string(gpus));
  return GroupShape::of(gpus, t.gpus_per_node);
}

double us(double s) { return s * 1e6; }

void analyze_cost(const CostArgs& a) {
  const ModelSpec m = load_model(a.model);
  const Topology t = load_topology(a.topology);
  if (a.context < 1) throw InputError("--context", "expected >= 1 token, found " + std::to_string(a.context));
  if (a.prefill_tokens < 1) throw InputError("--prefill-tokens", "expected >= 1 token");
  if (a.fresh < 1) throw InputError("--fresh", "expected >= 1 token (a prefill computes at least one)");
  if (a.cached < 0) throw InputError("--cached", "expected >= 0 tokens");
  std::vector<double> batches = a.batches;
  if (batches.empty()) batches = {1, 8, 16, 32, 64, 128, 256};
  for (double b : batches)
    if (b < 1) throw InputError("--batch", "expected >= 1 request per GPU, found " + std::to_string(b));
  const CostModel cost(m, t.gpu, EpNetwork::of(t));
  const GroupShape de = group_of("--de-group", a.de_group, t), pe = group_of("--pe-group", a.pe_group, t);
  std::vector<DecodePoint> points;
  for (double b : batches) points.push_back(decode_point(cost, de, b, a.context));
  const PrefillPoint pf = prefill_point(cost, pe, t.cnic_bw, a.prefill_tokens, a.cached, a.fresh);

  if (a.json) {
    nlohmann::json j;
    j["model"] = m.name;
    j["topology"] = t.name;
    j["decode"] = {{"group_gpus", de.gpus}, {"nodes", de.nodes}, {"context", a.context}};
    for (const auto& p : points)
      j["decode"]["points"].push_back({{"batch", p.batch},
                                       {"step_s", p.step},
                                       {"layer_s",
                                        {{"attention", p.layer.attention},
                                         {"dense_weights", p.layer.dense},
                                         {"routed_experts", p.layer.experts},
                                         {"ep_all_to_all", p.layer.ep},
                                         {"overlap_hidden", p.layer.hidden}}},
                                       {"tokens_per_user", p.tokens_per_user},
                                       {"tokens_per_node", p.tokens_per_node}});
    j["prefill"] = {{"group_gpus", pe.gpus},          {"nodes", pe.nodes},
                    {"tokens_per_gpu", pf.tokens},    {"cached", pf.cached},
                    {"fresh", pf.fresh},              {"layer_s", {{"attention", pf.attention}, {"linear", pf.linear}, {"ep_all_to_all", pf.ep}}},
                    {"forward_s", pf.forward},        {"fresh_tokens_per_node", pf.fresh_per_node},
                    {"input_tokens_per_node", pf.input_per_node}, {"ep_bound", pf.ep_bound()}};
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << m.name << " on " << t.name << "\n\ndecode: EP" << de.gpus << " over " << de.nodes << " node"
            << (de.nodes > 1 ? "s" : "") << ", every request at " << a.context << " tokens of context\n";
  std::cout << std::right << std::setw(7) << "batch" << std::setw(10) << "step ms" << "   per layer (us):"
            << std::setw(8) << "attn" << std::setw(8) << "dense" << std::setw(9) << "experts" << std::setw(8) << "EP"
            << std::setw(9) << "hidden" << std::setw(12) << "tok/s/user" << std::setw(12) << "tok/s/node" << "\n";
  for (const auto& p : points)
    std::cout << std::fixed << std::setw(7) << std::setprecision(0) << p.batch << std::setw(10)
              << std::setprecision(2) << p.step * 1e3 << "                    " << std::setprecision(1)
              << std::setw(8) << us(p.layer.attention) << std::setw(8) << us(p.layer.dense) << std::setw(9)
              << us(p.layer.experts) << std::setw(8) << us(p.layer.ep) << std::setw(9) << us(-p.layer.hidden)
              << std::setw(12) << p.tokens_per_user << std::setw(12) << std::setprecision(0) << p.tokens_per_node
              << "\n";
  std::cout << "\nprefill: EP" << pe.gpus << " over " << pe.nodes << " node" << (pe.nodes > 1 ? "s" : "") << ", "
            << std::setprecision(0) << pf.tokens << " fresh tokens per GPU per forward, requests of " << pf.cached
            << " cached + " << pf.fresh << " fresh tokens\n"
            << "  per layer (us): attention " << std::setprecision(1) << us(pf.attention) << ", linear "
            << us(pf.linear) << ", EP all-to-all " << us(pf.ep) << (pf.ep_bound() ? " (binds)" : " (hidden)")
            << "\n  forward " << std::setprecision(3) << pf.forward << " s; per node " << std::setprecision(0)
            << pf.fresh_per_node << " computed tokens/s, " << pf.input_per_node << " prompt tokens/s\n";
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
  c->add_flag("--json", args->json, "Machine-readable output");
  c->callback([args] { analyze_cost(*args); });
}

}  // namespace dualpath::cli
