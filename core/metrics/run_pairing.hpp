// Pairing the results folders of two runs for `dualpath validate`: either two run folders (each holds a
// summary.json), or two folders of per-policy subfolders as `dualpath run --policy a,b` writes them, matched by
// subfolder name.
#pragma once

#include <string>
#include <vector>

namespace dualpath {

struct RunPair {
  std::string name;           // the subfolder name; "" for two plain run folders
  std::string sim_summary;    // paths of the two summary.json files
  std::string measured_summary;
};

struct RunPairing {
  std::vector<RunPair> pairs;       // by subfolder name
  std::vector<std::string> notes;   // subfolders found on one side only (not compared)
};

// Throws InputError naming the folder when one is missing, holds neither a summary.json nor subfolders with one,
// when one is a run folder and the other a folder of subfolders, or when no subfolder name is on both sides.
RunPairing pair_run_folders(const std::string& sim_dir, const std::string& measured_dir);

}  // namespace dualpath
