#include "core/config/input_file.hpp"

#include <filesystem>
#include <system_error>

#include "core/config/input_error.hpp"
#include "core/config/near_miss.hpp"

namespace dualpath {

namespace {

// What is wrong with `path` as a file to read, as a predicate ("does not exist", "is a directory, expected a
// file", "cannot be reached (...)"), or "" when it names something that is not a folder.
std::string problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))  // ec: a symlink loop or a permission problem, not a missing file
    return ec ? "cannot be reached (" + ec.message() + ")" : "does not exist";
  if (fs::is_directory(path, ec)) return "is a directory, expected a file";
  return "";
}

// " (did you mean \"P\"?)" for a missing path whose folder holds a near miss.
std::string suggestion(const std::string& path, const std::string& problem) {
  if (problem != "does not exist") return "";
  const std::string near = nearest_path(path);
  return near.empty() ? "" : " (did you mean \"" + near + "\"?)";
}

}  // namespace

std::string input_file_problem(const std::string& path, const std::string& what) {
  const std::string p = problem(path);
  return p.empty() ? p : what + " file \"" + path + "\" " + p + suggestion(path, p);
}

bool read_bounded_line(std::istream& in, std::string& line, const std::string& path, std::int64_t lineno) {
  line.clear();
  std::istream::sentry ok(in, /*noskipws=*/true);
  if (!ok) return false;
  std::streambuf* sb = in.rdbuf();
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(line.empty() ? std::ios::eofbit | std::ios::failbit : std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (line.size() >= kMaxLineBytes)
      throw InputError(path + ":" + std::to_string(lineno),
                       "a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                           " MiB: expected one record per line (is the file binary, or missing its line breaks?)");
    line.push_back(static_cast<char>(c));
  }
}

std::ifstream open_input_file(const std::string& path, const std::string& what, std::ios::openmode mode) {
  if (const std::string p = problem(path); !p.empty()) throw InputError(path, what + " file " + p + suggestion(path, p));
  std::ifstream in(path, mode);
  if (!in) throw InputError(path, "cannot open " + what + " file for reading (permissions?)");
  return in;
}

}  // namespace dualpath
