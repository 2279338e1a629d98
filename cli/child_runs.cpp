#include "cli/child_runs.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dualpath::cli {

unsigned default_parallelism() { return std::max(1u, std::thread::hardware_concurrency()); }

std::string log_tail(const std::string& path, size_t max_chars) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.size() > max_chars ? "..." + s.substr(s.size() - max_chars) : s;
}

std::vector<int> run_child_jobs(const std::vector<ChildJob>& jobs, unsigned parallel,
                                const std::function<void(size_t)>& on_start,
                                const std::function<void(size_t, int)>& on_done) {
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<int> codes(jobs.size(), -1);
  std::map<pid_t, size_t> running;
  size_t next = 0;
  parallel = std::max(1u, parallel);
  while (next < jobs.size() || !running.empty()) {
    if (next < jobs.size() && running.size() < parallel) {
      std::vector<std::string> argv = {exe};
      argv.insert(argv.end(), jobs[next].args.begin(), jobs[next].args.end());
      const std::string& log = jobs[next].log_path;
      std::fflush(nullptr);
      const pid_t parent = ::getpid();
      const pid_t pid = ::fork();
      if (pid == 0) {
        // A child dies with its parent: a killed sweep or shard must not leave runs that still burn CPU and write
        // into a staging folder the next run may be cleaning (core/study/run_folders.hpp). The check closes the race with a
        // parent that died before the prctl.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(137);
        if (!log.empty()) {
          const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
          if (fd >= 0) {
            ::dup2(fd, 1);
            ::dup2(fd, 2);
            ::close(fd);
          }
        }
        std::vector<char*> cargv;
        for (auto& s : argv) cargv.push_back(s.data());
        cargv.push_back(nullptr);
        ::execv(exe.c_str(), cargv.data());
        std::perror("execv");
        ::_exit(127);
      }
      if (pid < 0) throw std::runtime_error("fork failed");
      running[pid] = next;
      if (on_start) on_start(next);
      ++next;
      continue;
    }
    int status = 0;
    const pid_t pid = ::wait(&status);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("wait failed");
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t i = it->second;
    running.erase(it);
    codes[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (on_done) on_done(i, codes[i]);
  }
  return codes;
}

}  // namespace dualpath::cli
