#include "core/config/output_file.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "core/config/input_error.hpp"

namespace dualpath {

void write_text_atomically(const std::string& path, const std::string& text, const std::string& suffix) {
  write_stream_atomically(path, [&](std::ostream& out) { out << text; }, suffix);
}

void write_stream_atomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                             const std::string& suffix) {
  AtomicOutputFile file(path, suffix);
  write(file.stream());
  file.commit();
}

void check_output_file(const std::string& path, const std::string& option, const std::vector<std::string>& inputs,
                       bool folder_may_be_made) {
  namespace fs = std::filesystem;
  const std::string where = option.empty() ? path : option + " " + path;
  if (path.empty()) throw InputError(option + " ''", "expected an output file path, found an empty one");
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::is_symlink(st))
    throw InputError(where, "is a symbolic link: dualpath writes a new file in its place and would replace the link, "
                            "not write its target; name the target itself");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(where, std::string("is ") + (fs::is_directory(st) ? "a folder" : "a device or special file") +
                                ", not a regular file: dualpath writes through a temporary renamed over the target, "
                                "which would replace it; name a file");
  // Its folder exists, or (a writer that makes it: JUnit reports) can be made: a file in the way (the folder, or a
  // folder above it, is a file) is refused either way.
  const fs::path folder = fs::path(path).parent_path();
  for (fs::path up = folder; !up.empty(); up = up.parent_path()) {
    const fs::file_status ust = fs::status(up, ec);
    if (fs::exists(ust)) {
      if (!fs::is_directory(ust)) throw InputError(where, up.string() + " is a file, not a folder");
      break;
    }
    if (!folder_may_be_made) throw InputError(where, "its folder " + folder.string() + " does not exist");
    if (up == up.parent_path()) break;
  }
  if (!fs::exists(st)) return;
  const fs::path target = fs::weakly_canonical(path, ec);
  for (const auto& in : inputs) {
    if (in.empty() || !fs::exists(in, ec)) continue;
    if (fs::equivalent(path, in, ec))
      throw InputError(where, "is the command's own input: writing it would replace what it reads; name another file");
    if (!fs::is_directory(in, ec)) continue;
    const fs::path folder = fs::weakly_canonical(in, ec);
    const auto rel = target.lexically_relative(folder);
    if (!rel.empty() && *rel.begin() != "..")
      throw InputError(where, "is a file of " + in + ", which the command reads: writing it would replace it; name "
                              "a file outside it");
  }
}

AtomicOutputFile::AtomicOutputFile(std::string path, const std::string& suffix) : path_(std::move(path)) {
  check_output_file(path_, "");
  tmp_ = path_ + suffix;
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw std::runtime_error("cannot write " + tmp_);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(tmp_, ec);
}

void AtomicOutputFile::commit() {
  out_.close();
  if (!out_) throw std::runtime_error("failed writing " + tmp_ + " (disk full?)");
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) {
    std::filesystem::remove(tmp_, ec);
    throw std::runtime_error("cannot rename " + tmp_ + " to " + path_ + " (is it a folder?)");
  }
  committed_ = true;
}

void make_output_folder(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError(option + " ''", "expected a folder path, found an empty one");
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec || !fs::is_directory(path))
    throw InputError(option + " " + path, "cannot create the output folder (" +
                                             (ec ? ec.message() : std::string("a file is in the way")) + ")");
}

}  // namespace dualpath
