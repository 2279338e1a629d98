// The output folder a command writes into, and writing a result file so that a kill at any moment leaves it whole
// or absent (a temporary file in the same folder, renamed over it once complete): summary.json, the CSV files,
// perf.json, plan.json, capacity.json, JUnit reports. Beside input_file.hpp: the files a user names or reads back.
#pragma once

#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace dualpath {

// The output rule (issue 68): a file a command writes is a regular file or nothing yet, in a folder that exists (or,
// with `folder_may_be_made`, for a writer that makes it, as the JUnit writer does: no file where a folder goes), or a
// character device or pipe (/dev/null to discard, a link to one too) or a standard stream by name (/dev/stdout to
// print), which is written through (is_output_device); never another special file (a socket or block device), a folder, a symbolic link to a file (its target would be
// replaced, not written) or one of the command's own inputs (`inputs`: files it reads, or folders whose existing
// files it reads). Throws InputError naming `option` and the path (exit 2). Commands call it
// at load, before any work, so that nothing is written before they know they can write it all; the writers below
// apply the same rule when they open the file.
void check_output_file(const std::string& path, const std::string& option,
                       const std::vector<std::string>& inputs = {}, bool folder_may_be_made = false);

// True when `path` is a character device or a pipe (or a link to one), or a standard stream by name (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N): the writers below write it through, appending.
bool is_output_device(const std::string& path);

// Writes `text` to `path` through PATH<suffix> renamed over it (the output rule applies: InputError). A suffix unique to the writer (host and pid) lets
// concurrent writers on a shared folder never share the temporary. Throws std::runtime_error naming the file.
void write_text_atomically(const std::string& path, const std::string& text, const std::string& suffix = ".partial");

// The same with the text streamed by `write` straight into the temporary: a large file (requests.csv of a
// 10-hour run: 280 bytes per round) is never held in memory whole.
void write_stream_atomically(const std::string& path, const std::function<void(std::ostream&)>& write,
                             const std::string& suffix = ".partial");

// A file written over a whole run (requests.csv, streamed as requests settle): PATH<suffix> is open from the
// start and renamed over PATH by commit(); destroyed uncommitted (the run failed), the temporary is removed.
class AtomicOutputFile {
 public:
  explicit AtomicOutputFile(std::string path, const std::string& suffix = ".partial");  // throws, naming the file
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;
  std::ostream& stream() { return *target_; }
  void commit();  // throws std::runtime_error naming the file

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  std::ostream* target_ = &out_;  // std::cout / std::cerr for the standard streams by name
  bool committed_ = false;
};

// Creates the output folder `path` (and its parents) or throws InputError naming `option` and the path: an empty
// path, a path that is (or runs through) a file, or one that cannot be created. Commands call it before any work,
// so a bad --out does not waste a run.
void make_output_folder(const std::string& path, const std::string& option);

}  // namespace dualpath
