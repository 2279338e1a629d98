#include "core/workload/agents.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>
#include <sstream>
#include <string>

#include "core/config/input_error.hpp"
#include "core/workload/rng.hpp"
#include "core/workload/synth.hpp"
#include "core/workload/trace_io.hpp"

namespace dualpath {

namespace {

constexpr uint64_t kAgentStream = 0x4147454E5453ULL;  // keeps agent sampling independent of trace generation

void check(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw InputError("workload." + key, what);
}

SynthParams profile_of(const WorkloadSpec& spec) {
  return synth_profile(name_of(spec.profile), spec.table2_reading,
                       "workload.profile");
}

int64_t effective_max_len(const WorkloadSpec& spec) {
  if (spec.max_len > 0) return spec.max_len;
  if (spec.source == WorkloadSource::Generate) return profile_of(spec).max_len;
  return 0;
}

// A round's tokens times the scale factor, at least 1. Checked against the trace format's limit of 10^9 tokens per
// round, which also keeps every context sum far from int64 overflow (a factor of 1e19 once wrapped to 1 token).
int64_t scaled(int64_t tokens, double factor, const char* key) {
  const double v = static_cast<double>(tokens) * factor;
  if (!(v <= 1e9)) {
    std::ostringstream m;
    m << "scales a round of " << tokens << " tokens to " << v << ", more than the 10^9 tokens a round may have";
    throw InputError(std::string("workload.") + key, m.str());
  }
  return std::max<int64_t>(1, std::llround(v));
}

// Scales, adds the think time and truncates one agent's rounds.
std::vector<Round> shape_rounds(const std::vector<Round>& in, const WorkloadSpec& spec, int64_t max_len,
                                const std::string& source) {
  std::vector<Round> out;
  int64_t context = 0;
  for (const Round& r : in) {
    Round s{scaled(r.append, spec.append_scale, "append_scale"), scaled(r.gen, spec.gen_scale, "gen_scale"),
            r.think * spec.time_scale + spec.think_time};
    if (max_len > 0 && context + s.append + s.gen > max_len) break;  // later rounds are longer still
    context += s.append + s.gen;
    out.push_back(s);
  }
  if (out.empty())
    throw InputError("workload.max_len", "expected a length limit that fits the first round of every trajectory, "
                                         "found " + std::to_string(max_len) + " < " +
                                         std::to_string(scaled(in.front().append, spec.append_scale, "append_scale") +
                                                        scaled(in.front().gen, spec.gen_scale, "gen_scale")) +
                                         " tokens in the first round of '" + source + "'");
  out.back().think = 0;  // nothing follows the last round
  return out;
}

// Where position `x` of a trajectory's token stream lands once its rounds are scaled: the same offset, scaled,
// within the same append or generation (rounded down, so a shared prefix never grows past shared content).
int64_t scaled_position(const std::vector<Round>& rounds, int64_t x, const WorkloadSpec& spec) {
  int64_t orig = 0, out = 0;
  for (const Round& r : rounds) {
    const std::pair<int64_t, int64_t> parts[] = {{r.append, scaled(r.append, spec.append_scale, "append_scale")},
                                                 {r.gen, scaled(r.gen, spec.gen_scale, "gen_scale")}};
    for (const auto& [len, len_scaled] : parts) {
      if (x <= orig + len) {
        const auto offset = static_cast<long double>(x - orig);
        return out + static_cast<int64_t>(offset * len_scaled / len);
      }
      orig += len, out += len_scaled;
    }
  }
  return out;
}

// Every trajectory's shared prefixes in the trace's own tokens, nearest ancestor first. An ancestor whose run is
// no longer than a deeper one's is dropped (the deeper one holds those blocks), so the lists stay short even along
// a long chain of parents. Parents are resolved before their children, without recursion.
std::vector<std::vector<SharedPrefix>> ancestry(const Trace& trace) {
  const auto& ts = trace.trajectories;
  std::vector<std::vector<SharedPrefix>> out(ts.size());
  std::vector<bool> done(ts.size(), false);
  for (size_t i = 0; i < ts.size(); ++i) {
    std::vector<size_t> walk;  // i, its parent, ... up to the first one already resolved (or a root)
    for (int k = static_cast<int>(i); k >= 0 && !done[static_cast<size_t>(k)]; k = ts[static_cast<size_t>(k)].parent_index)
      walk.push_back(static_cast<size_t>(k));
    for (auto w = walk.rbegin(); w != walk.rend(); ++w) {
      const Trajectory& t = ts[*w];
      auto& list = out[*w];
      if (t.parent_index >= 0) {
        list.push_back(SharedPrefix{t.parent_index, t.shared});
        for (const SharedPrefix& e : out[static_cast<size_t>(t.parent_index)]) {
          const int64_t tokens = std::min(e.tokens, t.shared);
          if (tokens >= list.back().tokens) list.back() = SharedPrefix{e.trajectory, tokens};  // deeper, as long
          else list.push_back(SharedPrefix{e.trajectory, tokens});
        }
      }
      done[*w] = true;
    }
  }
  return out;
}

// An agent's shared prefixes in its own scaled tokens (see Agent::shares). With scaling, the agent's stream and
// the ancestor's map the same original prefix to their own lengths; the shorter one is shared.
std::vector<SharedPrefix> scaled_shares(const Trace& trace, size_t trajectory, const std::vector<SharedPrefix>& original,
                                        const WorkloadSpec& spec) {
  std::vector<SharedPrefix> out;
  const auto& ts = trace.trajectories;
  for (const SharedPrefix& e : original) {
    int64_t tokens = e.tokens;
    if (spec.append_scale != 1.0 || spec.gen_scale != 1.0)
      tokens = std::min(scaled_position(ts[trajectory].rounds, e.tokens, spec),
                        scaled_position(ts[static_cast<size_t>(e.trajectory)].rounds, e.tokens, spec));
    if (!out.empty()) tokens = std::min(tokens, out.back().tokens);
    out.push_back(SharedPrefix{e.trajectory, tokens});
  }
  return out;
}

}  // namespace

std::vector<Agent> make_agents(const Trace& trace, const WorkloadSpec& spec) {
  const auto& trajs = trace.trajectories;
  if (trajs.empty()) throw InputError("workload", "expected at least one trajectory, found an empty trace");
  for (const auto& t : trajs)
    if (t.rounds.empty()) throw InputError("workload", "trajectory '" + t.id + "' has no rounds");
  check(spec.append_scale > 0 && std::isfinite(spec.append_scale), "append_scale", "expected a positive factor");
  check(spec.gen_scale > 0 && std::isfinite(spec.gen_scale), "gen_scale", "expected a positive factor");
  check(spec.max_len >= 0, "max_len", "expected >= 0 (0 = default limit), found " + std::to_string(spec.max_len));
  check(spec.think_time >= 0 && std::isfinite(spec.think_time), "think_time", "expected seconds >= 0");
  check(spec.time_scale > 0 && std::isfinite(spec.time_scale), "time_scale", "expected a positive factor");
  const int64_t max_len = effective_max_len(spec);
  workload::Rng rng(workload::mix_seed(spec.seed, kAgentStream));
  const auto n = static_cast<uint64_t>(trajs.size());

  std::vector<Agent> agents;
  auto add = [&](double start, const std::vector<Round>& rounds, const std::string& source) {
    agents.push_back(Agent{static_cast<int>(agents.size()), start, shape_rounds(rounds, spec, max_len, source), source,
                           -1, {}, nullptr});
  };
  bool any_parent = false;
  for (const auto& t : trajs) any_parent = any_parent || t.parent_index >= 0;
  const std::vector<std::vector<SharedPrefix>> shares = any_parent ? ancestry(trace) : decltype(ancestry(trace)){};
  std::vector<const BlockHashes*> hashes(trajs.size(), nullptr);
  bool any_hashes = false;
  for (size_t i = 0; i < trajs.size(); ++i)
    if (trajs[i].hashes) hashes[i] = trajs[i].hashes.get(), any_hashes = true;
  if (any_hashes)
    for (const auto& [factor, key] : {std::pair{spec.append_scale, "append_scale"}, std::pair{spec.gen_scale, "gen_scale"}})
      check(factor == 1.0, key, "expected 1 for a trace with block hashes (their positions are the trace's own "
                                "tokens, which a scale would move), found " + format_decimal(factor));
  const auto hashed = any_hashes ? hashed_streams(hashes) : decltype(hashed_streams(hashes)){};
  auto replay = [&](double start, size_t trajectory) {
    const Trajectory& t = trajs[trajectory];
    add(start, t.rounds, t.id);
    agents.back().trajectory = static_cast<int>(trajectory);
    if (any_parent) agents.back().shares = scaled_shares(trace, trajectory, shares[trajectory], spec);
    if (any_hashes) agents.back().hashed = hashed[trajectory];
  };

  if (spec.mode == ArrivalMode::Offline) {
    check(spec.agents >= 0, "agents", "expected >= 0 (0 = one per trajectory), found " + std::to_string(spec.agents));
    const uint64_t count = spec.agents == 0 ? n : static_cast<uint64_t>(spec.agents);
    for (uint64_t k = 0; k < count; ++k) {
      if (k < n) {
        replay(0.0, k);
        continue;
      }
      const Trajectory& t = trajs[rng.below(n)];
      const auto prefix = static_cast<int64_t>(
          kClonePrefixMinTokens + rng.below(static_cast<uint64_t>(kClonePrefixMaxTokens - kClonePrefixMinTokens + 1)));
      std::vector<Round> rounds;
      rounds.reserve(t.rounds.size() + 1);
      rounds.push_back(Round{prefix, 1, 0.0});
      rounds.insert(rounds.end(), t.rounds.begin(), t.rounds.end());
      add(0.0, rounds, t.id + "+prefix");
    }
    return agents;
  }

  check(spec.aps >= 0 && std::isfinite(spec.aps), "aps", "expected agents per second >= 0");
  check(spec.duration >= 0 && std::isfinite(spec.duration), "duration", "expected seconds >= 0");
  if (spec.aps == 0) {  // replay the trace's own arrivals
    for (const auto& t : trajs)
      if (t.arrival < 0)
        throw InputError("workload.aps", "expected aps > 0, or a trace with an arrival time on every trajectory; '" +
                                             t.id + "' has none");
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return trajs[a].arrival < trajs[b].arrival; });
    for (size_t i : order) {
      const double at = trajs[i].arrival * spec.time_scale;
      if (spec.duration <= 0 || at < spec.duration) replay(at, i);
    }
    return agents;
  }
  check(spec.duration > 0, "duration", "expected a positive duration (seconds) for Poisson arrivals, found " +
                                           format_decimal(spec.duration));
  for (double t = rng.exponential(spec.aps); t < spec.duration; t += rng.exponential(spec.aps)) {
    replay(t, rng.below(n));
  }
  return agents;
}

Trace load_workload_trace(const WorkloadSpec& spec, const std::string& scenario_dir) {
  if (spec.source == WorkloadSource::Generate) {
    const SynthParams params = profile_of(spec);
    check(spec.trajectories >= 1, "trajectories",
          "expected at least 1 trajectory to generate, found " + std::to_string(spec.trajectories));
    return generate_trace(params, spec.trajectories, spec.seed);
  }
  check(!spec.file.empty(), "file", "expected the path of a native trace file, found an empty string");
  std::filesystem::path p(spec.file);
  if (p.is_relative() && !scenario_dir.empty()) p = std::filesystem::path(scenario_dir) / p;
  return read_trace(p.string());
}

}  // namespace dualpath
