// --band: one answer per calibration (docs/calibration.md, "The band"). The command runs itself once per calibration
// as a child process, with its own arguments less --band and --out, plus --calibration NAME and --out OUT/NAME,
// and then reads the children's result files to print each figure as a range with the calibration at each end.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dualpath::cli {

struct BandMember {
  std::string calibration;  // as given in --band (a bundled name or a file)
  std::string name, label;  // the calibration's own name and label
  std::string out;          // OUT/<name>: the child's results folder
};

// Runs `command` (the subcommand's name, e.g. "capacity") once per calibration of `band` (comma-separated, at
// least two) into `out`/<name>/, one after another (each child runs its own probes in parallel); its log goes to
// `out`/<name>.log. Throws InputError for a bad list (fewer than two, an unknown name, two of one name) before
// anything runs, and CLI::RuntimeError naming the log when a child fails.
std::vector<BandMember> run_band(const std::string& command, const std::string& band, const std::string& out);

// The low and high ends of a figure over the band: each end's value and the calibration that gives it.
struct BandRange {
  double low = 0, high = 0;
  std::string low_by, high_by;
  nlohmann::json to_json() const {
    return {{"low", low}, {"high", high}, {"low_calibration", low_by}, {"high_calibration", high_by}};
  }
};
BandRange band_range(const std::vector<std::pair<std::string, double>>& values);

// "0.396-0.855 (paper-cluster .. ideal)": a range with `digits` after the point.
std::string range_text(const BandRange& r, int digits, const std::string& unit = "");

// Writes OUT/band.json: {"band": [...], "members": [{calibration, name, label, folder}], plus `figures`}.
void write_band_json(const std::string& out, const std::vector<BandMember>& members, const nlohmann::json& figures);

}  // namespace dualpath::cli
