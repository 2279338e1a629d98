#include "core/config/output_file.hpp"
#include "core/config/input_file.hpp"
#include "core/workload/trace_io.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <unordered_map>
#include <vector>

#include "core/config/input_error.hpp"
#include "core/workload/json_fields.hpp"
#include "core/workload/read_progress.hpp"

namespace dualpath {

using workload::get_int;
using workload::get_number;
using workload::kMaxTokens;

namespace {

constexpr double kMaxSeconds = workload::kMaxTraceSeconds;

Round parse_round(const nlohmann::json& r, const std::string& where, size_t index) {
  const std::string name = "rounds[" + std::to_string(index) + "]";
  if (!r.is_array() || r.size() < 2 || r.size() > 3)
    throw InputError(where, name + ": expected [append_tokens, gen_tokens] or [append, gen, think_seconds], found " +
                                workload::describe(r));
  Round round;
  round.append = get_int(r[0], where, name + " append tokens", 1, kMaxTokens);
  round.gen = get_int(r[1], where, name + " generated tokens", 1, kMaxTokens);
  if (r.size() == 3) round.think = get_number(r[2], where, name + " think seconds", 0, kMaxSeconds);
  return round;
}

// "hashes": {"block": T, "tokens": N, "ids": [...]} (traces/FORMAT.md).
std::shared_ptr<const BlockHashes> parse_hashes(const nlohmann::json& h, const std::string& where, int64_t total) {
  if (!h.is_object())
    throw InputError(where, "hashes: expected an object {\"block\": tokens per id, \"tokens\": tokens hashed, "
                            "\"ids\": [...]}, found " + workload::describe(h));
  workload::reject_unknown_keys(h, where + " hashes", {"block", "tokens", "ids"});
  for (const char* key : {"block", "tokens", "ids"})
    if (!h.contains(key))
      throw InputError(where, std::string("hashes: missing key '") + key + "' (e.g. {\"block\":512,\"tokens\":700,"
                                                                    "\"ids\":[4,9]})");
  auto out = std::make_shared<BlockHashes>();
  out->block_tokens = get_int(h["block"], where, "hashes.block", 1, 1 << 20);
  out->tokens = get_int(h["tokens"], where, "hashes.tokens", 1, kMaxTokens);
  if (out->tokens > total)
    throw InputError(where, "hashes.tokens: expected at most the trajectory's own " + std::to_string(total) +
                                " tokens, found " + std::to_string(out->tokens));
  const auto& ids = h["ids"];
  if (!ids.is_array()) throw InputError(where, "hashes.ids: expected an array of integers, found " + workload::describe(ids));
  const int64_t blocks = (out->tokens + out->block_tokens - 1) / out->block_tokens;
  if (static_cast<int64_t>(ids.size()) != blocks)
    throw InputError(where, "hashes.ids: expected ceil(tokens/block) = " + std::to_string(blocks) + " ids for " +
                                std::to_string(out->tokens) + " tokens in blocks of " + std::to_string(out->block_tokens) +
                                ", found " + std::to_string(ids.size()));
  out->ids.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    out->ids.push_back(get_int(ids[i], where, "hashes.ids[" + std::to_string(i) + "]", 0, INT64_MAX));
  return out;
}

}  // namespace

Trajectory parse_trajectory_line(const std::string& line, const std::string& where) {
  const nlohmann::json j = workload::parse_object_line(line, where);
  workload::reject_unknown_keys(j, where, {"id", "arrival", "parent", "shared", "hashes", "rounds"});
  Trajectory t;
  if (!j.contains("id")) throw InputError(where, "missing key 'id' (expected a non-empty string)");
  if (!j["id"].is_string() || j["id"].get<std::string>().empty())
    throw InputError(where, "id: expected a non-empty string, found " + workload::describe(j["id"]));
  t.id = j["id"].get<std::string>();
  if (j.contains("arrival")) t.arrival = get_number(j["arrival"], where, "arrival", 0, kMaxSeconds);
  if (!j.contains("rounds")) throw InputError(where, "missing key 'rounds' (expected a non-empty array of rounds)");
  const auto& rounds = j["rounds"];
  if (!rounds.is_array() || rounds.empty())
    throw InputError(where, "rounds: expected a non-empty array of rounds, found " + workload::describe(rounds));
  t.rounds.reserve(rounds.size());
  for (size_t i = 0; i < rounds.size(); ++i) t.rounds.push_back(parse_round(rounds[i], where, i));
  if (j.contains("parent") != j.contains("shared"))
    throw InputError(where, std::string("expected 'parent' and 'shared' together (a shared prefix names both), found "
                                        "only '") + (j.contains("parent") ? "parent" : "shared") + "'");
  if (j.contains("parent")) {
    if (!j["parent"].is_string() || j["parent"].get<std::string>().empty())
      throw InputError(where, "parent: expected the id of another trajectory, found " + workload::describe(j["parent"]));
    t.parent = j["parent"].get<std::string>();
    if (t.parent == t.id) throw InputError(where, "parent: expected another trajectory's id, found its own id '" + t.id + "'");
    t.shared = get_int(j["shared"], where, "shared tokens", 1, std::numeric_limits<int64_t>::max());
    if (t.shared > t.total_tokens())
      throw InputError(where, "shared: expected at most the trajectory's own " + std::to_string(t.total_tokens()) +
                                  " tokens, found " + std::to_string(t.shared));
  }
  if (j.contains("hashes")) {
    if (j.contains("parent"))
      throw InputError(where, "hashes: expected either block hashes or 'parent'/'shared', found both (the hashes "
                              "already say which blocks are another trajectory's; drop 'parent' and 'shared')");
    t.hashes = parse_hashes(j["hashes"], where, t.total_tokens());
  }
  return t;
}

void link_parents(Trace& trace, const std::vector<std::string>& where) {
  auto& ts = trace.trajectories;
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < ts.size(); ++i) index.emplace(ts[i].id, static_cast<int>(i));
  for (size_t i = 0; i < ts.size(); ++i) {
    Trajectory& t = ts[i];
    t.parent_index = -1;
    if (t.parent.empty()) continue;
    const auto it = index.find(t.parent);
    if (it == index.end())
      throw InputError(where[i], "parent: expected the id of a trajectory in this trace, found '" + t.parent +
                                     "', which no line has");
    const Trajectory& p = ts[static_cast<size_t>(it->second)];
    if (p.hashes)
      throw InputError(where[i], "parent: expected a trajectory without block hashes, found '" + p.id + "', which "
                                     "carries them (give this trajectory the hashes of its shared prefix instead)");
    if (t.shared > p.total_tokens())
      throw InputError(where[i], "shared: expected at most the " + std::to_string(p.total_tokens()) +
                                     " tokens of parent '" + p.id + "', found " + std::to_string(t.shared));
    t.parent_index = it->second;
  }
  // A chain of parents must end: walking up from any trajectory may not come back to it.
  std::vector<int> state(ts.size(), 0);  // 0 unvisited, 1 on the current walk, 2 known to end
  for (size_t i = 0; i < ts.size(); ++i) {
    std::vector<int> walk;
    int k = static_cast<int>(i);
    while (k >= 0 && state[static_cast<size_t>(k)] == 0) {
      state[static_cast<size_t>(k)] = 1;
      walk.push_back(k);
      k = ts[static_cast<size_t>(k)].parent_index;
    }
    if (k >= 0 && state[static_cast<size_t>(k)] == 1) {
      // The cycle named by its first few ids and its length: a cycle through a million trajectories is one line of
      // a readable length, not a megabyte.
      constexpr int kShown = 5;
      std::string cycle = ts[static_cast<size_t>(k)].id;
      int length = 1;
      for (int c = ts[static_cast<size_t>(k)].parent_index; c != k; c = ts[static_cast<size_t>(c)].parent_index) {
        if (length < kShown) cycle += " -> " + ts[static_cast<size_t>(c)].id;
        ++length;
      }
      cycle += length <= kShown ? " -> " + ts[static_cast<size_t>(k)].id
                                : " -> ... (" + std::to_string(length) + " trajectories in the cycle)";
      throw InputError(where[static_cast<size_t>(k)],
                       "parent: expected a chain of parents that ends, found the cycle " + cycle);
    }
    for (int w : walk) state[static_cast<size_t>(w)] = 2;
  }
}

Trace parse_trace(std::istream& in, const std::string& name) {
  Trace trace;
  std::set<std::string> ids;
  std::vector<std::string> wheres;
  std::string line;
  workload::ReadProgress progress(in, name);
  for (int64_t lineno = 1; read_bounded_line(in, line, name, lineno); ++lineno) {
    progress.line();
    if (!line.empty() && line.back() == '\r') line.pop_back();  // tolerate CRLF files
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = name + ":" + std::to_string(lineno);
    Trajectory t = parse_trajectory_line(line, where);
    // Unique ids: the simulator's outputs are keyed by them.
    if (!ids.insert(t.id).second) throw InputError(where, "id: expected a unique id, found '" + t.id + "' again");
    trace.trajectories.push_back(std::move(t));
    wheres.push_back(where);
  }
  if (in.bad()) throw InputError(name, "read error (the file could not be read to its end)");
  if (trace.trajectories.empty())
    throw InputError(name, "expected at least one trajectory (one JSON object per line), found an empty trace");
  link_parents(trace, wheres);
  return trace;
}

Trace read_trace(const std::string& path) {
  if (path == "-") return parse_trace(std::cin, "<stdin>");
  std::ifstream in = open_input_file(path, "trace");
  return parse_trace(in, path);
}

std::string format_decimal(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", x);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

void write_trace(std::ostream& out, const Trace& trace) {
  for (const auto& t : trace.trajectories) {
    out << "{\"id\":" << nlohmann::json(t.id).dump();
    if (t.arrival >= 0) out << ",\"arrival\":" << format_decimal(t.arrival);
    if (!t.parent.empty()) out << ",\"parent\":" << nlohmann::json(t.parent).dump() << ",\"shared\":" << t.shared;
    if (t.hashes) {
      out << ",\"hashes\":{\"block\":" << t.hashes->block_tokens << ",\"tokens\":" << t.hashes->tokens << ",\"ids\":[";
      for (size_t i = 0; i < t.hashes->ids.size(); ++i) out << (i ? "," : "") << t.hashes->ids[i];
      out << "]}";
    }
    out << ",\"rounds\":[";
    for (size_t i = 0; i < t.rounds.size(); ++i) {
      const Round& r = t.rounds[i];
      out << (i ? ",[" : "[") << r.append << ',' << r.gen;
      // A pause that prints as 0 (below a microsecond) is written as none, so that the file reads back to itself.
      if (const std::string think = format_decimal(r.think); think != "0") out << ',' << think;
      out << ']';
    }
    out << "]}\n";
  }
}

void write_trace_file(const std::string& path, const Trace& trace) {
  if (path == "-") {
    write_trace(std::cout, trace);
    std::cout.flush();
    return;
  }
  if (path.empty()) throw InputError("-o ''", "expected an output file path, or - for standard output");
  // Through a temporary renamed over the target (the output rule, core/config/output_file.hpp): a kill leaves the
  // old file or the whole new one, never a cut trace.
  try {
    write_stream_atomically(path, [&](std::ostream& out) { write_trace(out, trace); });
  } catch (const InputError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw InputError(path, std::string("write error (") + e.what() + ")");
  }
}

}  // namespace dualpath
