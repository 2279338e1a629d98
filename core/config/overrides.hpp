// --set overrides: "path=value" edits applied to the merged scenario tree before validation.
// The path is dotted ("topology.snic_bw") or slash-separated ("/topology/snic_bw"); the value is parsed as JSON
// when it is valid JSON (4, true, null, {"a":1}) and taken as a string otherwise ("200 Gbps", basic).
// Missing intermediate objects are created, so optional keys can be set; a key that the scenario format does
// not know is then rejected by validation, naming the override as the origin.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/config/origins.hpp"

namespace dualpath {

struct Override {
  std::string text;      // its origin in messages ("--set policy.name=basic", or "calib.json: /set/policy.name")
  std::string pointer;   // JSON pointer ("/policy/name")
  nlohmann::json value;
  std::string base_dir;  // folder that relative paths in `value` resolve against ("" = the working directory)
};

// The JSON pointer named by an override path ("topology.snic_bw", "topology/snic_bw", "/topology/snic_bw").
// Throws InputError at `where` for an empty path or an empty key ("a..b").
std::string override_pointer(const std::string& path, const std::string& where);

// Splits and parses one "path=value" text; throws InputError naming the override when it is malformed.
// A text made by labelled_override names its own origin in messages instead of "--set ...".
Override parse_override(const std::string& text);

// An override that messages name by what the user typed (e.g. "--fault snic-down:node=0,at=300s" for the
// "faults/-={...}" it becomes): the label travels in front of the text between two unit-separator bytes.
std::string labelled_override(const std::string& origin, const std::string& text);

// Writes the override into `tree` and records it in `origins` (at the first object it created, or at the
// target key). Throws InputError when the path runs through a value that is not an object.
void apply_override(nlohmann::json& tree, const Override& o, Origins& origins);

}  // namespace dualpath
