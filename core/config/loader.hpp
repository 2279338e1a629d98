// Loading a scenario: read the scenario file, resolve its model and topology references, apply overlay files
// (core/config/overlay.hpp) and then --set overrides, then validate every field strictly into a typed Scenario (all quantities in SI units).
//
// Scenario file: {name, description?, sources?, model, topology, deployment, workload, policy, outputs?, sim?}.
// "model" and "topology" are either a path string, resolved against the scenario file's folder
// ("../models/deepseek-v3.2-660b.json"), or an inline object. Field reference: docs/configuration.md.
//
// Every problem raises InputError whose message names the file (or override) the value came from, the JSON
// pointer in the merged scenario ("/topology/snic_bw"), and what was expected vs found.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/scenario.hpp"

namespace dualpath {

// `overlay_files` are applied in order after the scenario file, then `overrides` ("path=value" texts as given to
// --set, see overrides.hpp) in order, so the command line wins. An override of "model" or "topology" with a
// string loads that file (relative to the working directory for --set, to the overlay's folder for an overlay).
// Scenario::overlays lists the overlay files applied.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       const std::vector<std::string>& overlay_files = {});

// The same, for a scenario document held in memory (the Python module's dict): `name` stands for its file in
// messages ("<dict>: /workload/agents: ...") and in Scenario::source_file, and its relative paths (model, topology,
// a trace, a profile) resolve against `base_dir` ("" = the working directory).
Scenario load_scenario_document(const nlohmann::json& document, const std::string& name, const std::string& base_dir,
                                const std::vector<std::string>& overrides = {},
                                const std::vector<std::string>& overlay_files = {});

// A model or topology file on its own (e.g. for tools that only need the hardware).
ModelSpec load_model(const std::string& path);
Topology load_topology(const std::string& path);
// The same under a calibration (a bundled name or a file; "" = none): its topology values applied to the file's.
Topology load_topology(const std::string& path, const std::string& calibration);

// The effective configuration, for echoing into results and for `dualpath check`: same keys as the input
// files, every quantity as a plain number in SI units (bytes, bytes/s, s, FLOP/s), defaults filled in, unset
// policy toggles as null, plus a "derived" object (KV bytes per token, GPU and group counts).
nlohmann::json scenario_to_json(const Scenario& scenario);

// The calibration a scenario was loaded under, as every output names it: {"name", "label"} and "file" when it was
// not a bundled one.
nlohmann::json calibration_json(const Scenario& scenario);

}  // namespace dualpath
