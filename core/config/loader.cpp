#include "core/config/loader.hpp"

#include <filesystem>

#include "core/config/input_error.hpp"
#include "core/config/json_file.hpp"
#include "core/config/object_reader.hpp"
#include "core/config/origins.hpp"
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

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  Origins origins;
  origins.set("", path, /*is_file=*/true);
  json tree = read_json_file(path, "scenario");
  if (!tree.is_object()) throw InputError(origins.where(""), "expected a scenario object, found " + describe_found(tree));

  resolve_reference(tree, "model", scenario_dir(path), "model", origins);
  resolve_reference(tree, "topology", scenario_dir(path), "topology", origins);

  for (const std::string& text : overrides) {
    const Override o = parse_override(text);
    apply_override(tree, o, origins);
    // A model or topology swapped on the command line is a file name relative to the working directory.
    if (o.pointer == "/model") resolve_reference(tree, "model", "", "model", origins);
    if (o.pointer == "/topology") resolve_reference(tree, "topology", "", "topology", origins);
  }

  const ObjectReader root(tree, "", origins,
                          {"name", "description", "sources", "model", "topology", "deployment", "workload", "policy",
                           "outputs", "sim"});
  Scenario s;
  s.source_file = path;
  s.name = root.string("name");
  // The name becomes a results folder (results/<name>/), so it must be one safe path component.
  if (s.name.empty() || s.name.front() == '.' ||
      s.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != std::string::npos) {
    root.fail("name", "expected a name of letters, digits, '.', '_' or '-' not starting with '.', found \"" + s.name + "\"");
  }
  s.description = root.string_or("description", "");
  root.string_map("sources");
  s.model = parse_model(root, "model");
  s.topology = parse_topology(root, "topology");
  s.deployment = parse_deployment(root, "deployment", s.topology);
  s.workload = parse_workload(root, "workload");
  s.policy = parse_policy(root, "policy");
  s.outputs = parse_outputs(root, "outputs");
  s.sim = parse_sim(root, "sim", s.model);
  return s;
}

ModelSpec load_model(const std::string& path) { return load_section<ModelSpec>(path, "model", parse_model); }

Topology load_topology(const std::string& path) {
  return load_section<Topology>(path, "topology", parse_topology);
}

}  // namespace dualpath
