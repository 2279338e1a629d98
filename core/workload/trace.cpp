#include "core/workload/trace.hpp"

namespace dualpath {

int64_t Trajectory::total_tokens() const {
  int64_t t = 0;
  for (const auto& r : rounds) t += r.append + r.gen;
  return t;
}

int64_t Trajectory::context_before(size_t round) const {
  int64_t t = 0;
  for (size_t i = 0; i < round && i < rounds.size(); ++i) t += rounds[i].append + rounds[i].gen;
  return t;
}

}  // namespace dualpath
