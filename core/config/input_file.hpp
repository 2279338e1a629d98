// Opening a file a user named as input (a scenario, a trace, a Mooncake trace): one place that tells a missing file,
// a folder and an unreadable file apart, so every reader says which instead of a bare "read error".
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <string>

namespace dualpath {

// Bounds on what one read of a user's file may take (issue 68: every reader loaded a whole file before checking
// it, so a 2 GB file of NULs took 4.3 GB and ended a 4 GiB container's `check` in std::bad_alloc). A JSON file read
// whole (a scenario, model, topology, overlay, profile, summary) is at most kMaxJsonFileBytes; a line of a
// line-based file (traces, request logs, CSV) at most kMaxLineBytes. Both are far above any real file: the bundled
// scenarios are a few KB, a profile a few hundred KB, and a trace line of a million-token context with 16-token
// block hashes about 0.6 MB.
inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{64} << 20;
inline constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;

// std::getline with a bound: false at the end of the input (nothing read); InputError("path:lineno", ...) when the
// line runs past kMaxLineBytes before its line break, having read at most that much of it.
bool read_bounded_line(std::istream& in, std::string& line, const std::string& path, std::int64_t lineno);

// What is wrong with `path` as a <what> file to read, in words ("<what> file \"P\" does not exist", "... is a
// directory, expected a <what> file", "... cannot be reached (...)"), or "" when it is a readable regular file's path.
std::string input_file_problem(const std::string& path, const std::string& what);

// Opens `path` for reading. InputError naming the path when it does not exist ("<what> file does not exist"), is a
// directory ("... is a directory, expected a <what> file"), cannot be reached or cannot be opened.
std::ifstream open_input_file(const std::string& path, const std::string& what,
                              std::ios::openmode mode = std::ios::in);

}  // namespace dualpath
