#include "core/config/origins.hpp"

#include <filesystem>

namespace dualpath {

void Origins::set(const std::string& pointer, const std::string& origin, bool is_file) {
  set_with_base(pointer, origin, is_file ? std::filesystem::path(origin).parent_path().string() : "");
}

void Origins::set_with_base(const std::string& pointer, const std::string& origin, const std::string& base_dir) {
  // An override of /model replaces everything below it, including origins registered for deeper pointers.
  const std::string below = pointer + "/";
  for (auto it = by_pointer_.lower_bound(below); it != by_pointer_.end() && it->first.starts_with(below);) {
    it = by_pointer_.erase(it);
  }
  by_pointer_[pointer] = Entry{origin, base_dir};
}

const Origins::Entry* Origins::find(const std::string& pointer) const {
  // Walk up the pointer one segment at a time; the first registered ancestor (or itself) wins.
  std::string p = pointer;
  while (true) {
    if (auto it = by_pointer_.find(p); it != by_pointer_.end()) return &it->second;
    if (p.empty()) return nullptr;
    p.erase(p.rfind('/'));
  }
}

std::string Origins::of(const std::string& pointer) const {
  const Entry* e = find(pointer);
  return e ? e->origin : "<unknown>";
}

std::string Origins::base_dir(const std::string& pointer) const {
  const Entry* e = find(pointer);
  return e ? e->base_dir : "";
}

}  // namespace dualpath
