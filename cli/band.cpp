#include "cli/band.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cli/child_runs.hpp"
#include "cli/commands.hpp"
#include "cli/invocation.hpp"
#include "cli/name_list.hpp"
#include "cli/shard.hpp"
#include "core/config/calibration.hpp"
#include "core/config/input_error.hpp"
#include "core/config/output_file.hpp"

namespace dualpath::cli {
namespace {

// This invocation's arguments after the subcommand, less the options the band sets for each child.
std::vector<std::string> band_child_arguments(const std::string& command) {
  const std::vector<std::string>& all = invocation_args();
  std::vector<std::string> args;
  auto it = std::find(all.begin(), all.end(), command);
  if (it == all.end()) return args;
  for (++it; it != all.end(); ++it) {
    const std::string& a = *it;
    bool dropped = false;
    for (const char* opt : {"--band", "--out", "--calibration"}) {
      const std::string o = opt;
      if (a == o) {  // "--out X": drop both words
        dropped = true;
        if (it + 1 != all.end()) ++it;
        break;
      }
      if (a.rfind(o + "=", 0) == 0) {
        dropped = true;
        break;
      }
    }
    if (!dropped) args.push_back(a);
  }
  return args;
}

}  // namespace

std::vector<BandMember> run_band(const std::string& command, const std::string& band, const std::string& out) {
  const auto refs = name_list(band, "--band");
  if (refs.size() < 2)
    throw InputError("--band " + band, "expected two or more calibrations, comma-separated (e.g. ideal,paper-cluster)");
  std::vector<BandMember> members;
  std::set<std::string> names;
  for (const auto& ref : refs) {
    // Read now, so a bad name or file fails before any child starts.
    const Calibration c = read_calibration(ref, "", "--band " + band);
    if (!names.insert(c.name).second)
      throw InputError("--band " + band, "names calibration \"" + c.name + "\" twice; each end needs its own");
    members.push_back({ref, c.name, c.label, out + "/" + c.name});
  }
  make_output_folder(out, "--out");
  const auto base = band_child_arguments(command);
  for (const auto& m : members) {
    ChildJob job;
    job.args = {command};
    job.args.insert(job.args.end(), base.begin(), base.end());
    job.args.insert(job.args.end(), {"--calibration", m.calibration, "--out", m.out});
    job.log_path = out + "/" + m.name + ".log";
    std::cerr << command << " --band: " << m.name << " (" << m.label << ")...\n";
    const auto codes = run_child_jobs({job}, 1, nullptr, nullptr);
    if (codes.front() != 0)
      throw CLI::RuntimeError(command + " under calibration " + m.name + " failed (exit " +
                                  std::to_string(codes.front()) + "): " + log_tail(job.log_path, 400),
                              codes.front() == kExitBadInput ? kExitBadInput : kExitFailure);
  }
  return members;
}

BandRange band_range(const std::vector<std::pair<std::string, double>>& values) {
  BandRange r;
  bool first = true;
  for (const auto& [name, v] : values) {
    if (first || v < r.low) r.low = v, r.low_by = name;
    if (first || v > r.high) r.high = v, r.high_by = name;
    first = false;
  }
  return r;
}

std::string range_text(const BandRange& r, int digits, const std::string& unit) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << r.low << "-" << r.high << unit << " (" << r.low_by << " .. "
    << r.high_by << ")";
  return s.str();
}

void write_band_json(const std::string& out, const std::vector<BandMember>& members, const nlohmann::json& figures) {
  nlohmann::json j = {{"band", nlohmann::json::array()}, {"members", nlohmann::json::array()}};
  for (const auto& m : members) {
    j["band"].push_back(m.name);
    j["members"].push_back({{"calibration", m.calibration}, {"name", m.name}, {"label", m.label}, {"folder", m.out}});
  }
  for (const auto& [k, v] : figures.items()) j[k] = v;
  write_json_atomically(out + "/band.json", j);
}

}  // namespace dualpath::cli
