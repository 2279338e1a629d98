#include "core/config/output_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "core/config/input_error.hpp"

namespace dualpath {

bool is_output_device(const std::string& path) {
  namespace fs = std::filesystem;
  // The standard streams by name, whatever they are open on (a terminal, a pipe, a file the shell redirected to).
  for (const char* stream : {"/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/"})
    if (path == stream || (std::string(stream).back() == '/' && path.rfind(stream, 0) == 0)) return true;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows a link to it
  return fs::is_character_file(st) || fs::is_fifo(st);
}

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
  // A character device (/dev/null, a terminal) or a pipe, or a link to one, and the standard streams by name
  // (/dev/stdout, /dev/stderr, /dev/fd/N) are written through: nothing is renamed over them, and discarding, printing
  // or piping a result is what the user asked for.
  if (is_output_device(path)) return;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (fs::is_symlink(st))
    throw InputError(where, "is a symbolic link: dualpath writes a new file in its place and would replace the link, "
                            "not write its target; name the target itself");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(where, std::string("is ") + (fs::is_directory(st) ? "a folder" : "a special file (a socket or block device)") +
                                ", not a regular file or character device: dualpath writes through a temporary "
                                "renamed over the target, which would replace it; name a file");
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
  // A character device is written straight through (there is no file to leave whole or absent).
  const bool through = is_output_device(path_);
  tmp_ = through ? path_ : path_ + suffix;
  // Our own standard streams are written through the program's stream, so a result and what the command prints
  // share one file offset (a second open of a redirected file would write over, or under, the printed lines).
  for (const auto& [names, stream] : {std::pair<std::vector<std::string>, std::ostream*>{
                                          {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}, &std::cout},
                                      {{"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"}, &std::cerr}})
    if (std::find(names.begin(), names.end(), path_) != names.end()) {
      target_ = stream;
      target_->flush();
      return;
    }
  // Through a stream, append: a shell's redirect to a file keeps what the command printed before the result.
  out_.open(tmp_, std::ios::binary | (through ? std::ios::app : std::ios::trunc));
  if (!out_) throw std::runtime_error("cannot write " + tmp_);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  out_.close();
  if (tmp_ == path_) return;  // a device: nothing of ours to remove
  std::error_code ec;
  std::filesystem::remove(tmp_, ec);
}

void AtomicOutputFile::commit() {
  if (target_ != &out_) {
    target_->flush();
    if (!*target_) throw std::runtime_error("failed writing " + path_);
    committed_ = true;
    return;
  }
  out_.close();
  if (!out_) throw std::runtime_error("failed writing " + tmp_ + " (disk full?)");
  if (tmp_ == path_) {  // written through a device
    committed_ = true;
    return;
  }
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
