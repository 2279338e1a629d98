#include "core/metrics/run_pairing.hpp"

#include <algorithm>
#include <filesystem>

#include "core/config/input_error.hpp"

namespace dualpath {
namespace {

namespace fs = std::filesystem;

struct Folder {
  bool is_run = false;             // holds a summary.json itself
  std::vector<std::string> subs;   // sorted names of subfolders holding a summary.json
};

Folder scan(const std::string& dir, const std::string& role) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw InputError(dir, role + " results folder does not exist");
  if (!fs::is_directory(dir, ec)) throw InputError(dir, "expected a " + role + " results folder, found a file");
  Folder f;
  f.is_run = fs::exists(fs::path(dir) / "summary.json", ec);
  if (f.is_run) return f;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec) && fs::exists(e.path() / "summary.json", ec)) f.subs.push_back(e.path().filename().string());
  }
  // Directory order is the file system's; sorting keeps the report deterministic.
  std::sort(f.subs.begin(), f.subs.end());
  if (f.subs.empty())
    throw InputError(dir, "no summary.json here or in any subfolder; expected the folder of a `dualpath run`");
  return f;
}

std::string summary_in(const std::string& dir, const std::string& sub) {
  return (sub.empty() ? fs::path(dir) : fs::path(dir) / sub).append("summary.json").string();
}

}  // namespace

RunPairing pair_run_folders(const std::string& sim_dir, const std::string& measured_dir) {
  const Folder sim = scan(sim_dir, "simulated");
  const Folder measured = scan(measured_dir, "measured");
  RunPairing out;
  if (sim.is_run && measured.is_run) {
    out.pairs.push_back({"", summary_in(sim_dir, ""), summary_in(measured_dir, "")});
    return out;
  }
  if (sim.is_run != measured.is_run) {
    const std::string& run_dir = sim.is_run ? sim_dir : measured_dir;
    const std::string& multi_dir = sim.is_run ? measured_dir : sim_dir;
    throw InputError(run_dir, "is a single run folder but " + multi_dir +
                                  " holds per-policy subfolders; give a policy subfolder of it instead");
  }
  for (const auto& name : sim.subs) {
    if (std::binary_search(measured.subs.begin(), measured.subs.end(), name))
      out.pairs.push_back({name, summary_in(sim_dir, name), summary_in(measured_dir, name)});
    else
      out.notes.push_back(name + " is only in " + sim_dir + ", not compared");
  }
  for (const auto& name : measured.subs) {
    if (!std::binary_search(sim.subs.begin(), sim.subs.end(), name))
      out.notes.push_back(name + " is only in " + measured_dir + ", not compared");
  }
  if (out.pairs.empty())
    throw InputError(sim_dir, "no policy subfolder name is also in " + measured_dir + "; nothing to compare");
  return out;
}

}  // namespace dualpath
