#include "core/config/loader.hpp"

#include <filesystem>

#include "core/config/calibration.hpp"
#include "core/config/faults.hpp"
#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/config/object_reader.hpp"
#include "core/config/origins.hpp"
#include "core/config/overlay.hpp"
#include "core/config/overrides.hpp"
#include "core/config/sections.hpp"

namespace dualpath {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Replaces a path string at tree[key] by the parsed file it names, and records that file as the origin of
// everything under /key. `base_dir` is "" for the working directory.
void resolve_reference(json& tree, const std::string& key, const std::string& base_dir, const std::string& kind,
                       Origins& origins) {
  auto it = tree.find(key);
  if (it == tree.end() || !it->is_string()) return;  // absent or inline: validation reports problems
  const std::string ref = it->get<std::string>();
  const std::string pointer = "/" + key;
  if (ref.empty()) throw InputError(origins.where(pointer), "expected a " + kind + " file path or object, found \"\"");
  const std::string file = (fs::path(base_dir) / ref).lexically_normal().string();
  json loaded;
  try {
    loaded = read_json_file(file, kind);
  } catch (const InputError& e) {
    // Name both the referring value and the file's own problem, on one line.
    throw InputError(origins.where(pointer), "cannot load " + kind + " \"" + ref + "\": " + e.what());
  }
  *it = std::move(loaded);
  origins.set(pointer, file, /*is_file=*/true);
}

// The scenario keys that name a file (or hold the object inline): the model, the cluster's topology and each role's.
constexpr const char* kReferenceKeys[] = {"model", "topology", "prefill_topology", "decode_topology"};
std::string reference_kind(const std::string& key) { return key == "model" ? "model" : "topology"; }

// A role's own hardware (issue 65): a topology like the cluster's, on the same node geometry and storage cluster,
// since the fabric numbers GPUs as node x gpus_per_node and the storage cluster is one.
std::optional<Topology> parse_role_topology(const ObjectReader& root, const std::string& key, const Topology& cluster) {
  if (!root.has(key)) return std::nullopt;
  Topology t = parse_topology(root, key);
  if (t.gpus_per_node != cluster.gpus_per_node)
    root.fail(key, "expected gpus_per_node " + std::to_string(cluster.gpus_per_node) + " (the cluster topology's: " +
                       "each role's nodes have as many GPUs), found " + std::to_string(t.gpus_per_node));
  if (!(t.storage == cluster.storage))
    root.fail(key, "expected the storage section of \"topology\" (" + cluster.name + "): the storage cluster is " +
                       "one for both roles, found another in " + t.name + " (a --set of topology.storage.X needs " +
                       key + ".storage.X too)");
  return t;
}

std::string scenario_dir(const std::string& path) { return fs::path(path).parent_path().string(); }

// A standalone model/topology file is read through the same section parser, wrapped as {"model": <file>}.
template <typename Spec, typename Parse>
Spec load_section(const std::string& path, const std::string& key, Parse parse) {
  json tree = json::object();
  tree[key] = read_json_file(path, key);
  Origins origins;
  origins.set("", path, /*is_file=*/true);
  const ObjectReader root(tree, "", origins, {key.c_str()});
  return parse(root, key);
}

}  // namespace

namespace {

// The body of both loaders: `tree` is the scenario document, `origins` already names where it came from, and
// `base_dir` is the folder its model and topology references resolve against.
Scenario load_tree(json tree, Origins origins, const std::string& source, const std::string& base_dir,
                   const std::vector<std::string>& overrides, const std::vector<std::string>& overlay_files) {
  if (!tree.is_object()) throw InputError(origins.where(""), "expected a scenario object, found " + describe_found(tree));

  for (const char* key : kReferenceKeys) resolve_reference(tree, key, base_dir, reference_kind(key), origins);

  // One code path for both kinds of edit: every overlay's "set" entries, then the command line's --set.
  std::vector<Override> edits;
  for (const std::string& file : overlay_files) {
    Overlay overlay = read_overlay(file);
    edits.insert(edits.end(), std::make_move_iterator(overlay.set.begin()), std::make_move_iterator(overlay.set.end()));
  }
  for (const std::string& text : overrides) edits.push_back(parse_override(text));

  // The calibration goes under every overlay and --set (so the command line wins): the last edit that names one,
  // else the scenario's own, else "ideal". Its topology keys apply to each role's topology too, so a mixed
  // cluster's roles share the storage reading and the fixed costs (a calibration describes the whole cluster).
  std::string cal_ref = "ideal", cal_where = "calibration (default)", cal_base = base_dir;
  auto take_ref = [&](const json& value, const std::string& where, const std::string& base) {
    if (!value.is_string())
      throw InputError(where, "expected a calibration name or file path (a string), found " + describe_found(value));
    cal_ref = value.get<std::string>(), cal_where = where, cal_base = base;
  };
  if (const auto it = tree.find("calibration"); it != tree.end()) take_ref(*it, origins.where("/calibration"), base_dir);
  for (const Override& o : edits)
    if (o.pointer == "/calibration") take_ref(o.value, o.text, o.base_dir);
  const Calibration calibration = read_calibration(cal_ref, cal_base, cal_where);
  std::vector<Override> calibrated;
  for (const Override& o : calibration.set) {
    calibrated.push_back(o);
    for (const char* role : {"prefill_topology", "decode_topology"})
      if (const auto it = tree.find(role); it != tree.end() && it->is_object()) {
        Override r = o;
        r.pointer = std::string("/") + role + o.pointer.substr(std::string("/topology").size());
        calibrated.push_back(std::move(r));
      }
  }
  edits.insert(edits.begin(), calibrated.begin(), calibrated.end());
  for (const Override& o : edits) {
    apply_override(tree, o, origins);
    // A model or topology swapped by an edit is a file name relative to the edit's folder (the working
    // directory for --set).
    for (const char* key : kReferenceKeys)
      if (o.pointer == std::string("/") + key) resolve_reference(tree, key, o.base_dir, reference_kind(key), origins);
  }

  const ObjectReader root(tree, "", origins,
                          {"name", "description", "sources", "model", "topology", "prefill_topology",
                           "decode_topology", "deployment", "workload", "policy", "slo", "outputs", "sim", "faults",
                           "calibration"});
  Scenario s;
  s.source_file = source;
  s.overlays = overlay_files;
  root.string_or("calibration", "");  // read above (a name or a file); declared here
  s.calibration = {calibration.name, calibration.label, calibration.bundled ? "" : calibration.file};
  s.name = root.string("name");
  // The name becomes a results folder (results/<name>/), so it must be one safe path component.
  // The name becomes a folder name (outputs.dir/<name>), so it is also limited to 100 characters (filesystems
  // refuse names over 255 bytes, and a run writes folders below it).
  if (s.name.size() > 100)
    root.fail("name", "expected a name of at most 100 characters, found " + std::to_string(s.name.size()));
  if (s.name.empty() || s.name.front() == '.' ||
      s.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != std::string::npos) {
    root.fail("name", "expected a name of letters, digits, '.', '_' or '-' not starting with '.', found \"" + s.name + "\"");
  }
  s.description = root.string_or("description", "");
  root.string_map("sources");
  s.model = parse_model(root, "model");
  s.topology = parse_topology(root, "topology");
  s.prefill_topology = parse_role_topology(root, "prefill_topology", s.topology);
  s.decode_topology = parse_role_topology(root, "decode_topology", s.topology);
  s.deployment = parse_deployment(root, "deployment", s.topology);
  s.workload = parse_workload(root, "workload");
  s.slo = parse_slo(root, "slo");
  s.policy = parse_policy(root, "policy");
  s.outputs = parse_outputs(root, "outputs");
  s.sim = parse_sim(root, "sim", s.model);
  s.faults = parse_faults(tree, origins, s.deployment, s.topology);
  return s;
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const std::vector<std::string>& overlay_files) {
  Origins origins;
  origins.set("", path, /*is_file=*/true);
  return load_tree(read_json_file(path, "scenario"), std::move(origins), path, scenario_dir(path), overrides,
                   overlay_files);
}

Scenario load_scenario_document(const nlohmann::json& document, const std::string& name, const std::string& base_dir,
                                const std::vector<std::string>& overrides,
                                const std::vector<std::string>& overlay_files) {
  Origins origins;
  origins.set_with_base("", name, base_dir);
  return load_tree(document, std::move(origins), name, base_dir, overrides, overlay_files);
}

ModelSpec load_model(const std::string& path) { return load_section<ModelSpec>(path, "model", parse_model); }

Topology load_topology(const std::string& path) {
  return load_section<Topology>(path, "topology", parse_topology);
}

Topology load_topology(const std::string& path, const std::string& calibration) {
  if (calibration.empty()) return load_topology(path);
  json tree = json::object();
  tree["topology"] = read_json_file(path, "topology");
  Origins origins;
  origins.set("", path, /*is_file=*/true);
  for (const Override& o : read_calibration(calibration, "", "--calibration " + calibration).set)
    apply_override(tree, o, origins);
  const ObjectReader root(tree, "", origins, {"topology"});
  return parse_topology(root, "topology");
}

}  // namespace dualpath
