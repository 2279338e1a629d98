#include "core/config/input_file.hpp"

#include <filesystem>
#include <system_error>

#include "core/config/input_error.hpp"

namespace dualpath {

std::string input_file_problem(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))  // ec: a symlink loop or a permission problem, not a missing file
    return what + " file \"" + path + "\"" + (ec ? " cannot be reached (" + ec.message() + ")" : " does not exist");
  if (fs::is_directory(path, ec)) return what + " file \"" + path + "\" is a directory, expected a file";
  return "";
}

std::ifstream open_input_file(const std::string& path, const std::string& what, std::ios::openmode mode) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw InputError(path, what + (ec ? " file cannot be reached (" + ec.message() + ")" : " file does not exist"));
  if (fs::is_directory(path, ec)) throw InputError(path, what + " file is a directory, expected a file");
  std::ifstream in(path, mode);
  if (!in) throw InputError(path, "cannot open " + what + " file for reading (permissions?)");
  return in;
}

}  // namespace dualpath
