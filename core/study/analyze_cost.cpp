#include "core/study/analyze_cost.hpp"

#include <cmath>

#include "core/config/input_error.hpp"
#include "core/config/loader.hpp"
#include "core/config/step_profile_file.hpp"
#include "core/cost/profile_writer.hpp"
#include "core/cost/step_profile.hpp"

namespace dualpath::study {
namespace {

GroupShape group_of(const std::string& flag, int gpus, const Topology& t) {
  if (gpus < 1) throw InputError(flag, "expected a group of at least 1 GPU, found " + std::to_string(gpus));
  if (gpus > t.gpus_per_node && gpus % t.gpus_per_node != 0)
    throw InputError(flag, "expected a multiple of the topology's " + std::to_string(t.gpus_per_node) +
                               " GPUs per node (or fewer), found " + std::to_string(gpus));
  return GroupShape::of(gpus, t.gpus_per_node);
}

std::vector<double> batches_of(const CostQuestion& q) {
  std::vector<double> batches = q.batches;
  if (batches.empty()) batches = {1, 8, 16, 32, 64, 128, 256};
  for (double b : batches)
    if (b < 1) throw InputError("--batch", "expected >= 1 request per GPU, found " + std::to_string(b));
  return batches;
}

ModelSpec roofline_of(const ModelSpec& m) {
  ModelSpec roofline = m;  // the figures are the roofline's; a profile is shown beside them
  roofline.timing = StepTiming::Roofline;
  roofline.profile.reset();
  return roofline;
}

}  // namespace

void check_cost_question(const CostQuestion& q) {
  if (q.context < 1) throw InputError("--context", "expected >= 1 token, found " + std::to_string(q.context));
  if (q.prefill_tokens < 1) throw InputError("--prefill-tokens", "expected >= 1 token");
  if (q.fresh < 1) throw InputError("--fresh", "expected >= 1 token (a prefill computes at least one)");
  if (q.cached < 0) throw InputError("--cached", "expected >= 0 tokens");
  batches_of(q);
}

nlohmann::json roofline_profile_of(const CostQuestion& q, const std::string& label, double decode_scale) {
  const ModelSpec m = load_model(q.model);
  const Topology t = load_topology(q.topology, q.calibration);
  check_cost_question(q);
  const CostModel cost(roofline_of(m), t.gpu, EpNetwork::of(t));
  const GroupShape de = group_of("--de-group", q.de_group, t), pe = group_of("--pe-group", q.pe_group, t);
  return roofline_profile(cost, t, {pe.gpus}, {de.gpus}, label, decode_scale);
}

CostAnswer analyze_cost(const CostQuestion& q) {
  CostAnswer a;
  a.model = load_model(q.model);
  a.topology = load_topology(q.topology, q.calibration);
  check_cost_question(q);
  const ModelSpec& m = a.model;
  const Topology& t = a.topology;
  const ModelSpec roofline = roofline_of(m);
  const CostModel cost(roofline, t.gpu, EpNetwork::of(t));
  a.de = group_of("--de-group", q.de_group, t), a.pe = group_of("--pe-group", q.pe_group, t);
  a.context = q.context;
  const std::vector<double> batches = batches_of(q);
  for (double b : batches) a.points.push_back(decode_point(cost, a.de, b, q.context));
  a.prefill = prefill_point(cost, a.pe, t.cnic_bw, q.prefill_tokens, q.cached, q.fresh);

  // A profile given: the same shapes from its tables (the model file's own profile, or --profile FILE).
  a.with_profile = m;
  if (!q.profile.empty()) {
    a.with_profile.timing = StepTiming::Profile;
    a.with_profile.profile_file = q.profile;
    a.with_profile.profile = std::make_shared<const StepProfile>(read_step_profile(q.profile));
  }
  a.profiled = a.with_profile.timing == StepTiming::Profile && a.with_profile.profile;
  if (a.profiled) {
    a.profile_file = a.with_profile.profile->file;
    a.profile_label = a.with_profile.profile->label;
    const CostModel prof(a.with_profile, t.gpu, EpNetwork::of(t));
    if (a.with_profile.profile->decode_for(a.de.gpus))
      for (double b : batches) a.profile_steps.push_back(decode_point(prof, a.de, b, q.context).step);
    if (a.with_profile.profile->prefill_for(a.pe.gpus))
      a.profile_forward = prefill_point(prof, a.pe, t.cnic_bw, q.prefill_tokens, q.cached, q.fresh).forward;
  }
  if (q.public_points) {
    if (!is_deepseek_v3_family(m))
      throw InputError("--public", "the public points are measurements of DeepSeek-V3/V3.2 (256 routed experts, top-8, "
                                   "61 layers); " + m.name + " is not one");
    a.public_points = public_points(roofline, t, a.profiled ? &a.with_profile : nullptr);
  }
  return a;
}

nlohmann::json CostAnswer::to_json() const {
  nlohmann::json j;
  j["model"] = model.name;
  j["topology"] = topology.name;
  j["decode"] = {{"group_gpus", de.gpus}, {"nodes", de.nodes}, {"context", context}};
  for (const auto& p : points)
    j["decode"]["points"].push_back({{"batch", p.batch},
                                     {"step_s", p.step},
                                     {"layer_s",
                                      {{"attention", p.layer.attention},
                                       {"dense_weights", p.layer.dense},
                                       {"routed_experts", p.layer.experts},
                                       {"kernel_overheads", p.layer.kernels},
                                       {"ep_all_to_all", p.layer.ep},
                                       {"overlap_hidden", p.layer.hidden}}},
                                     {"tokens_per_user", p.tokens_per_user},
                                     {"tokens_per_node", p.tokens_per_node}});
  if (profiled) {
    j["profile"] = {{"file", profile_file}, {"label", profile_label}};
    if (!profile_steps.empty()) j["profile"]["decode_step_s"] = profile_steps;
    if (profile_forward >= 0) j["profile"]["prefill_forward_s"] = profile_forward;
  }
  for (const auto& p : public_points) {
    nlohmann::json q = {{"id", p.id},           {"figure", p.figure},     {"source", p.source},
                        {"unit", p.unit},       {"measured", p.measured}, {"model", p.model},
                        {"ratio", p.ratio()},   {"tolerance", p.tolerance}, {"held", p.held()},
                        {"within", p.within()}, {"note", p.note}};
    if (p.profile >= 0) q["profile"] = p.profile;
    j["public_points"].push_back(q);
  }
  const PrefillPoint& pf = prefill;
  j["prefill"] = {{"group_gpus", pe.gpus},
                  {"nodes", pe.nodes},
                  {"tokens_per_gpu", pf.tokens},
                  {"cached", pf.cached},
                  {"fresh", pf.fresh},
                  {"layer_s", {{"attention", pf.attention}, {"linear", pf.linear}, {"ep_all_to_all", pf.ep}}},
                  {"forward_s", pf.forward},
                  {"fresh_tokens_per_node", pf.fresh_per_node},
                  {"input_tokens_per_node", pf.input_per_node},
                  {"ep_bound", pf.ep_bound()}};
  return j;
}

}  // namespace dualpath::study
