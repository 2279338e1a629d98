// Near-miss suggestions for what a user typed (issue 45): a misspelled key, choice or file path gets the one it
// most likely meant, "(did you mean ...?)", so the message says what to type.
#pragma once

#include <string>
#include <vector>

namespace dualpath {

// Levenshtein distance.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate nearest to `typed` when it is a near miss (at most 2 edits, and fewer edits than the candidate has
// characters), else "". Ties go to the first candidate.
std::string nearest(const std::string& typed, const std::vector<std::string>& candidates);

// " (did you mean \"X\"?)" for the nearest candidate, or "".
std::string did_you_mean(const std::string& typed, const std::vector<std::string>& candidates);

// For a path that does not exist: the same folder's entry nearest to its file name (as a path spelled like
// `path`), or "" when none is near or the folder cannot be read.
std::string nearest_path(const std::string& path);

}  // namespace dualpath
