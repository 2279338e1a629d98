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

AtomicOutputFile::AtomicOutputFile(std::string path, const std::string& suffix)
    : path_(std::move(path)), tmp_(path_ + suffix), out_(tmp_, std::ios::binary | std::ios::trunc) {
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
