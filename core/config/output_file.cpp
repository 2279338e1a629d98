#include "core/config/output_file.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace dualpath {

void write_text_atomically(const std::string& path, const std::string& text, const std::string& suffix) {
  write_stream_atomically(path, [&](std::ostream& out) { out << text; }, suffix);
}

void write_stream_atomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                             const std::string& suffix) {
  const std::string tmp = path + suffix;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    write(out);
    out.close();
    if (!out) throw std::runtime_error("failed writing " + tmp + " (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error("cannot rename " + tmp + " to " + path + " (is it a folder?)");
  }
}

}  // namespace dualpath
