// Helpers shared by the workload tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace dualpath::test {

// Writes `text` to a fresh file under the test temp dir and returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "dualpath_workload";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace dualpath::test
