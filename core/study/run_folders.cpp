#include "core/study/run_folders.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <system_error>

#include "core/config/output_file.hpp"
#include "core/config/input_error.hpp"

namespace fs = std::filesystem;

namespace dualpath::study {

namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "host";
  std::string h = buf;
  for (char& c : h)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.')) c = '_';
  return h.empty() ? "host" : h;
}

const std::string kStaging = ".staging-";  // <dir>.staging-<host>-<pid>

// Whether a process of this host still runs. A zombie does not: a killed shard whose parent is gone may stay one
// until its new parent (pid 1 in a container) reaps it.
bool process_alive(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const auto close = line.rfind(')');          // "pid (comm) S ...": the state follows the command name
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

}  // namespace

std::string staging_folder(const std::string& dir) {
  const fs::path d(dir);
  const std::string host = host_name();
  const std::string mine = d.filename().string() + kStaging + host + "-";
  std::error_code ec;
  if (fs::is_directory(d.parent_path(), ec))
    for (const auto& e : fs::directory_iterator(d.parent_path(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(mine, 0) != 0) continue;
      const std::string pid = name.substr(mine.size());
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      // A staging folder of a process of this host that is gone: a killed run, never published.
      if (!process_alive(static_cast<pid_t>(std::stol(pid)))) fs::remove_all(e.path(), ec);
    }
  return dir + kStaging + host + "-" + std::to_string(::getpid());
}

bool publish_folder(const std::string& staging, const std::string& dir) {
  std::error_code ec;
  fs::rename(staging, dir, ec);  // atomic; fails when dir exists and is not empty
  if (!ec) return true;
  if (!fs::exists(dir)) return false;
  fs::remove_all(staging, ec);  // another shard published the same run first
  return true;
}

void write_json_atomically(const std::string& path, const nlohmann::json& j) {
  std::ostringstream text;
  text << std::setw(2) << j << "\n";
  try {
    write_text_atomically(path, text.str(), ".tmp-" + host_name() + "-" + std::to_string(::getpid()));
  } catch (const std::runtime_error& e) {
    throw InputError(path, std::string("cannot write (disk full or no permission?): ") + e.what());
  }
}

}  // namespace dualpath::study
