// The comma-separated lines of the run folder's CSV files (links.csv, requests.csv), read back by the analyses:
// cells of a line, and a column's index in a header.
#pragma once

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualpath::analysis {

// The cells of one line (no quoting: the run folder's files never quote); a trailing comma is an empty last cell.
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::stringstream ss(line);
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// The index of column `name` in `head`; std::runtime_error naming `file` when it has none.
inline size_t csv_column(const std::vector<std::string>& head, const std::string& name, const std::string& file) {
  const auto it = std::find(head.begin(), head.end(), name);
  if (it == head.end()) throw std::runtime_error(file + ": no column '" + name + "'");
  return static_cast<size_t>(it - head.begin());
}

}  // namespace dualpath::analysis
