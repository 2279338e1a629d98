#include "core/workload/agents.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
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
  return synth_profile(spec.profile, table2_reading(spec.table2_reading, "workload.table2_reading"),
                       "workload.profile");
}

int64_t effective_max_len(const WorkloadSpec& spec) {
  if (spec.max_len > 0) return spec.max_len;
  if (spec.source == "generate") return profile_of(spec).max_len;
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
            r.think + spec.think_time};
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
  const int64_t max_len = effective_max_len(spec);
  workload::Rng rng(workload::mix_seed(spec.seed, kAgentStream));
  const auto n = static_cast<uint64_t>(trajs.size());

  std::vector<Agent> agents;
  auto add = [&](double start, const std::vector<Round>& rounds, const std::string& source) {
    agents.push_back(Agent{static_cast<int>(agents.size()), start, shape_rounds(rounds, spec, max_len, source), source});
  };

  if (spec.mode == ArrivalMode::Offline) {
    check(spec.agents >= 0, "agents", "expected >= 0 (0 = one per trajectory), found " + std::to_string(spec.agents));
    const uint64_t count = spec.agents == 0 ? n : static_cast<uint64_t>(spec.agents);
    for (uint64_t k = 0; k < count; ++k) {
      if (k < n) {
        add(0.0, trajs[k].rounds, trajs[k].id);
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
    std::vector<const Trajectory*> order;
    for (const auto& t : trajs) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->arrival < b->arrival; });
    for (const auto* t : order)
      if (spec.duration <= 0 || t->arrival < spec.duration) add(t->arrival, t->rounds, t->id);
    return agents;
  }
  check(spec.duration > 0, "duration", "expected a positive duration (seconds) for Poisson arrivals, found " +
                                           format_decimal(spec.duration));
  for (double t = rng.exponential(spec.aps); t < spec.duration; t += rng.exponential(spec.aps)) {
    const Trajectory& tr = trajs[rng.below(n)];
    add(t, tr.rounds, tr.id);
  }
  return agents;
}

Trace load_workload_trace(const WorkloadSpec& spec, const std::string& scenario_dir) {
  if (spec.source == "generate") {
    const SynthParams params = profile_of(spec);
    check(spec.trajectories >= 1, "trajectories",
          "expected at least 1 trajectory to generate, found " + std::to_string(spec.trajectories));
    return generate_trace(params, spec.trajectories, spec.seed);
  }
  if (spec.source == "file") {
    check(!spec.file.empty(), "file", "expected the path of a native trace file, found an empty string");
    std::filesystem::path p(spec.file);
    if (p.is_relative() && !scenario_dir.empty()) p = std::filesystem::path(scenario_dir) / p;
    return read_trace(p.string());
  }
  throw InputError("workload.source", "expected \"generate\" or \"file\", found \"" + spec.source + "\"");
}

}  // namespace dualpath
