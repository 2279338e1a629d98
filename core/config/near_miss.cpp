#include "core/config/near_miss.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace dualpath {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(const std::string& typed, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 3;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(typed, c);
    if (d < best_distance && d < c.size()) best_distance = d, best = c;
  }
  return best;
}

std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates) {
  const std::string best = nearest(typed, candidates);
  return best.empty() ? "" : " (did you mean \"" + best + "\"?)";
}

std::string nearest_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return "";
  std::vector<std::string> names;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
    if (names.size() > 10000) break;  // a huge folder: not worth the search
  }
  std::sort(names.begin(), names.end());  // deterministic whatever the directory order
  const std::string best = nearest(p.filename().string(), names);
  if (best.empty()) return "";
  return p.has_parent_path() ? (p.parent_path() / best).string() : best;
}

}  // namespace dualpath
