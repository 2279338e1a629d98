// Opening a file a user named as input (a scenario, a trace, a Mooncake trace): one place that tells a missing file,
// a folder and an unreadable file apart, so every reader says which instead of a bare "read error".
#pragma once

#include <fstream>
#include <string>

namespace dualpath {

// What is wrong with `path` as a <what> file to read, in words ("<what> file \"P\" does not exist", "... is a
// directory, expected a <what> file", "... cannot be reached (...)"), or "" when it is a readable regular file's path.
std::string input_file_problem(const std::string& path, const std::string& what);

// Opens `path` for reading. InputError naming the path when it does not exist ("<what> file does not exist"), is a
// directory ("... is a directory, expected a <what> file"), cannot be reached or cannot be opened.
std::ifstream open_input_file(const std::string& path, const std::string& what,
                              std::ios::openmode mode = std::ios::in);

}  // namespace dualpath
