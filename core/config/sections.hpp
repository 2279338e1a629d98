// Typed parsing and validation of each section of a merged scenario tree (after file references are resolved
// and --set overrides applied). Each function reads one JSON object through an ObjectReader, so unknown keys,
// missing keys, wrong types, bad units and out-of-range values are all reported with file and JSON pointer.
// Defaults for optional keys are the member initialisers in scenario.hpp unless the function says otherwise.
#pragma once

#include "core/config/object_reader.hpp"
#include "core/config/scenario.hpp"

namespace dualpath {

// `parent` holds the section under `key` ("model", "topology", ...).
ModelSpec parse_model(const ObjectReader& parent, const std::string& key);
Topology parse_topology(const ObjectReader& parent, const std::string& key);
Deployment parse_deployment(const ObjectReader& parent, const std::string& key, const Topology& topology);
WorkloadSpec parse_workload(const ObjectReader& parent, const std::string& key);
PolicySpec parse_policy(const ObjectReader& parent, const std::string& key);
SloSpec parse_slo(const ObjectReader& parent, const std::string& key);
OutputSpec parse_outputs(const ObjectReader& parent, const std::string& key);
SimSpec parse_sim(const ObjectReader& parent, const std::string& key, const ModelSpec& model);

}  // namespace dualpath
