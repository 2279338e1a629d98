#include "core/mutation/mutant.hpp"

#ifdef DUALPATH_MUTATION
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace dualpath {
namespace {
std::string active_mutant() {
  const char* env = std::getenv("DUALPATH_MUTANT");
  const std::string name = env ? env : "";
  if (name.empty()) return name;
  for (const auto& m : kMutants)
    if (name == m.name) return name;
  throw std::logic_error("DUALPATH_MUTANT=" + name + " names no mutant of core/mutation/mutant.hpp");
}
}  // namespace

bool mutant(const char* name) {
  static const std::string active = active_mutant();
  return !active.empty() && active == name;
}

}  // namespace dualpath
#endif
