#include "core/kv/zero_service_reuse.hpp"

#include <algorithm>
#include <tuple>

#include "core/kv/block_index.hpp"

namespace dualpath {

ZeroServiceReuse zero_service_reuse(const std::vector<Agent>& agents, int block_tokens, bool persist_generation) {
  BlockIndex index(agents, block_tokens);
  struct Issue {
    double at;
    int agent, round;
    int64_t context;
  };
  std::vector<Issue> issues;
  for (const Agent& a : agents) {
    double t = a.start;
    int64_t context = 0;
    for (size_t k = 0; k < a.rounds.size(); ++k) {
      issues.push_back(Issue{t, a.id, static_cast<int>(k), context});
      context += a.rounds[k].append + a.rounds[k].gen;
      t += a.rounds[k].think;
    }
  }
  std::sort(issues.begin(), issues.end(),
            [](const Issue& x, const Issue& y) { return std::tie(x.at, x.agent, x.round) < std::tie(y.at, y.agent, y.round); });
  ZeroServiceReuse out;
  const int64_t bt = block_tokens;
  for (const Issue& i : issues) {
    const Round& r = agents[static_cast<size_t>(i.agent)].rounds[static_cast<size_t>(i.round)];
    const int64_t prompt = i.context + r.append;
    const int64_t hit = std::min(index.persisted_prefix(i.agent), index.aligned(prompt - 1));
    out.prompt_tokens += static_cast<double>(prompt);
    out.hit_tokens += static_cast<double>(hit);
    for (const auto& run : index.ranges(i.agent, 0, hit / bt))
      if (run.stream != i.agent) out.shared_hit_tokens += static_cast<double>((run.last - run.first) * bt);
    index.persist(index.claim(i.agent, hit / bt, index.aligned(prompt + (persist_generation ? r.gen : 0)) / bt));
  }
  return out;
}

}  // namespace dualpath
