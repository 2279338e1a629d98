// Where each value of the merged scenario tree came from, so an error can name the right file.
// A scenario is assembled from several files (the scenario, a model file, a topology file) and from --set
// overrides; after merging, a value at /model/n_layers belongs to the model file unless an override replaced it.
#pragma once

#include <map>
#include <string>

namespace dualpath {

class Origins {
 public:
  // Values at `pointer` and below came from `origin` (a file path or a "--set k=v" text), unless a longer
  // registered pointer says otherwise. Registering the same pointer again replaces the earlier origin.
  // `is_file` says whether `origin` is a file path (relative paths inside it resolve against its folder) or a
  // command-line override (relative paths resolve against the working directory).
  void set(const std::string& pointer, const std::string& origin, bool is_file);

  // Same, for an origin that is not itself a path (an overlay's "file: /set/key"), whose relative paths resolve
  // against `base_dir` ("" = the working directory).
  void set_with_base(const std::string& pointer, const std::string& origin, const std::string& base_dir);

  // The origin of the value at `pointer`: the origin registered for the longest prefix of it
  // ("" = the whole tree, which is always registered by the loader).
  std::string of(const std::string& pointer) const;

  // The folder that relative paths found at `pointer` are relative to ("" = the working directory).
  std::string base_dir(const std::string& pointer) const;

  // "origin: pointer", the `where` of an InputError about the value at `pointer`.
  std::string where(const std::string& pointer) const { return of(pointer) + ": " + (pointer.empty() ? "/" : pointer); }

 private:
  struct Entry {
    std::string origin;
    std::string base_dir;  // "" = the working directory
  };
  const Entry* find(const std::string& pointer) const;

  std::map<std::string, Entry> by_pointer_;
};

}  // namespace dualpath
