// Shared by the fuzz targets: the fuzzer's bytes as a file the readers can open, and the one rule every target
// checks. A reader may reject any input with InputError (that is its job); any other exception, a crash, a leak or
// a sanitizer report is a bug.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/input_error.hpp"

namespace dualpath::fuzz {

// A per-process scratch folder that mirrors the repository's layout (models/ and topologies/ linked beside a
// scenarios/ folder), so that a scenario's "../models/x.json" references resolve as in the bundled files.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    const std::string d = (fs::temp_directory_path() / ("dualpath-fuzz-" + std::to_string(getpid()))).string();
    fs::create_directories(d + "/scenarios");
    for (const char* sub : {"models", "topologies"}) {
      std::error_code ec;
      fs::create_directory_symlink(std::string(DUALPATH_DATA_DIR) + "/" + sub, d + "/" + sub, ec);
    }
    return d;
  }();
  return dir;
}

// Writes the bytes to `scratch_dir()/name` and returns its path.
inline std::string write_input(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

// Runs `f`; InputError is the expected outcome of bad input, anything else aborts so that libFuzzer reports it.
template <typename F>
void expect_clean(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: not an InputError: %s\n", e.what());
    std::abort();
  }
}

}  // namespace dualpath::fuzz
