// Calibrations: named files that describe a *cluster* as measured, applied to a scenario under its overlays and
// --set (docs/calibration.md). A calibration sets only topology keys (GPU and network efficiencies, the fitted
// fixed costs of Topology::FixedCosts, the storage client's read efficiency), so one file fitted on one model's
// figures applies to every model on that cluster.
//
//   {"calibration": 1, "name": "paper-cluster", "label": "fitted to the paper's cluster (...)",
//    "description": "...", "set": {"topology.fixed_costs.decode_request": "24 us", ...},
//    "parameters": {"topology.fixed_costs.decode_request": {"fitted_to": ["Table 3 TPOT ..."], "residuals": {...}}}}
//
// Every key of "set" must start with "topology." and have a "parameters" entry naming the figures it was fitted to
// (a calibration that names no figures is a silent constant). Schema: calibrations/schema.json.
#pragma once

#include <string>
#include <vector>

#include "core/config/overrides.hpp"

namespace dualpath {

struct Calibration {
  std::string name;         // "ideal", "paper-cluster", or the file's own "name"
  std::string label;        // one line: what it is fitted to (printed with every answer)
  std::string file;         // the file read
  bool bundled = false;     // read from the project's calibrations/ by name
  std::vector<Override> set;  // "topology.X" -> value, in key order
};

// The bundled calibrations' names (calibrations/*.json beside the project's data), sorted.
std::vector<std::string> bundled_calibrations();

// Reads `ref`: a bundled name ("ideal", "paper-cluster") or a file path (anything with a '/' or ending in
// ".json"), resolved against `base_dir` ("" = the working directory). `where` names the value in messages
// ("scenario.json: /calibration", "--calibration x"). Throws InputError naming the file and JSON pointer.
Calibration read_calibration(const std::string& ref, const std::string& base_dir, const std::string& where);

// The bundled file of a name, or "" when `ref` is not a bundled name.
std::string bundled_calibration_file(const std::string& ref);

}  // namespace dualpath
