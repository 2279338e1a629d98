// Overlay files: a set of --set overrides kept in a JSON file, e.g. what `dualpath hw calibrate` measured.
//
//   {"overlay": 1, "description": "...", "measured": {...}, "set": {"topology.snic_bw": "212.4 MB/s", ...}}
//
// "overlay" (format version, must be 1) and "set" are required; "description" (string) and "measured" (object,
// free-form, not read) are optional; any other top-level key is an error. Each "set" key is an override path
// exactly as --set takes it ("topology.snic_bw", "/topology/snic_bw"), and its value is the JSON value to put
// there, validated by the loader like any other value. Unlike --set, the value is already JSON, so "4" stays a
// string. Relative paths in values (a "model" file, "workload.file") resolve against the overlay's folder.
// The loader applies overlays in order after the scenario file and before --set, so the command line wins.
#pragma once

#include <string>
#include <vector>

#include "core/config/overrides.hpp"

namespace dualpath {

struct Overlay {
  std::string file;            // as given, for messages and for summary.json's "overlays"
  std::string description;
  std::vector<Override> set;   // sorted by pointer, so a parent ("model") is applied before its children
};

// Reads and checks one overlay file. Throws InputError naming the file and the JSON pointer in it
// ("calib.json: /set/topology.snic_bw: ...") when it is missing, malformed or not an overlay.
Overlay read_overlay(const std::string& path);

}  // namespace dualpath
