#include "core/workload/bailian.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <unordered_map>

#include "core/config/input_error.hpp"
#include "core/config/input_file.hpp"
#include "core/workload/block_hashes.hpp"
#include "core/workload/json_fields.hpp"
#include "core/workload/trace_io.hpp"

namespace dualpath {

using workload::get_int;
using workload::kMaxTokens;

std::vector<BailianRequest> read_bailian(const std::string& path) {
  std::ifstream in = open_input_file(path, "Bailian trace");
  std::vector<BailianRequest> out;
  std::unordered_map<int64_t, int64_t> line_of;  // chat id -> line
  workload::for_each_record(in, path, "Bailian request", {"chat_id", "parent_chat_id", "timestamp", "input_length",
                                                          "output_length", "type", "turn", "hash_ids"},
                            [&](const nlohmann::json& j, const std::string& where, int64_t lineno) {
    BailianRequest r;
    r.line = lineno;
    r.chat_id = get_int(j["chat_id"], where, "chat_id", 0, INT64_MAX);
    r.parent_chat_id = get_int(j["parent_chat_id"], where, "parent_chat_id (-1 for a first turn)", -1, INT64_MAX);
    if (r.parent_chat_id == r.chat_id)
      throw InputError(where, "parent_chat_id: expected another request's chat_id or -1, found its own " +
                                  std::to_string(r.chat_id));
    r.timestamp = workload::get_number(j["timestamp"], where, "timestamp (seconds)", 0, workload::kMaxTraceSeconds);
    r.input_length = get_int(j["input_length"], where, "input_length", 1, kMaxTokens);
    r.output_length = get_int(j["output_length"], where, "output_length", 0, kMaxTokens);
    if (!j["type"].is_string() || j["type"].get<std::string>().empty())
      throw InputError(where, "type: expected a non-empty string (text, search, image, file, ...), found " +
                                  workload::describe(j["type"]));
    r.type = j["type"].get<std::string>();
    r.turn = get_int(j["turn"], where, "turn", 1, kMaxTokens);
    r.hash_ids = workload::get_ids(j["hash_ids"], where, "hash_ids");
    const int64_t full = r.input_length / kBailianBlockTokens;
    const int64_t all = (r.input_length + kBailianBlockTokens - 1) / kBailianBlockTokens;
    if (static_cast<int64_t>(r.hash_ids.size()) != full && static_cast<int64_t>(r.hash_ids.size()) != all)
      throw InputError(where, "hash_ids: expected one id per 16-token block of input_length " +
                                  std::to_string(r.input_length) + " (" + std::to_string(all) + ", or " +
                                  std::to_string(full) + " without the partial last block), found " +
                                  std::to_string(r.hash_ids.size()));
    if (!out.empty() && r.timestamp < out.back().timestamp)
      throw InputError(where, "timestamp: expected non-decreasing timestamps, found " + format_decimal(r.timestamp) +
                                  " after " + format_decimal(out.back().timestamp));
    if (const auto [it, fresh] = line_of.emplace(r.chat_id, lineno); !fresh)
      throw InputError(where, "chat_id: expected a unique id, found " + std::to_string(r.chat_id) + " again (line " +
                                  std::to_string(it->second) + ")");
    out.push_back(std::move(r));
  });
  return out;
}

namespace {

int64_t hashed_tokens(const BailianRequest& r) {
  return std::min(r.input_length, static_cast<int64_t>(r.hash_ids.size()) * kBailianBlockTokens);
}

}  // namespace

std::vector<HashedInput> bailian_inputs(const std::vector<BailianRequest>& reqs) {
  std::vector<HashedInput> in;
  in.reserve(reqs.size());
  for (const BailianRequest& r : reqs) in.push_back(HashedInput{hashed_tokens(r), &r.hash_ids});
  return in;
}

BailianConversion convert_bailian(const std::vector<BailianRequest>& reqs, const std::string& file) {
  BailianConversion out;
  out.requests = static_cast<int64_t>(reqs.size());
  std::unordered_map<int64_t, size_t> index;  // chat id -> request
  for (size_t i = 0; i < reqs.size(); ++i) index.emplace(reqs[i].chat_id, i);

  struct Chain {
    std::vector<size_t> requests;
    int64_t context = 0;  // rebuilt: appends + generations so far
  };
  std::vector<Chain> chains;
  std::vector<size_t> chain_of(reqs.size());
  std::vector<bool> has_child(reqs.size(), false);
  for (size_t i = 0; i < reqs.size(); ++i) {
    const BailianRequest& r = reqs[i];
    ++out.types[r.type];
    out.zero_outputs += r.output_length == 0;
    std::optional<size_t> parent;
    if (r.parent_chat_id >= 0) {
      const auto it = index.find(r.parent_chat_id);
      if (it == index.end()) {
        ++out.orphans;
      } else if (it->second > i) {
        throw InputError(file + ":" + std::to_string(r.line),
                         "parent_chat_id: expected a request that arrives before this one, found chat " +
                             std::to_string(r.parent_chat_id) + " on line " + std::to_string(reqs[it->second].line));
      } else {
        parent = it->second;
      }
    }
    bool continues = false;
    if (parent) {
      const BailianRequest& p = reqs[*parent];
      const Chain& c = chains[chain_of[*parent]];
      const size_t full = static_cast<size_t>(p.input_length / kBailianBlockTokens);
      const bool prefix = full <= r.hash_ids.size() && full <= p.hash_ids.size() &&
                          std::equal(p.hash_ids.begin(), p.hash_ids.begin() + static_cast<long>(full), r.hash_ids.begin());
      if (has_child[*parent]) ++out.branches;
      else if (c.requests.back() != *parent || r.input_length <= c.context || !prefix) ++out.split;
      else continues = true;
      has_child[*parent] = true;
    }
    if (continues) {
      chain_of[i] = chain_of[*parent];
      ++out.continued;
    } else {
      chain_of[i] = chains.size();
      chains.emplace_back();
      out.sessions += !parent;
    }
    Chain& c = chains[chain_of[i]];
    c.requests.push_back(i);
    c.context = std::max(c.context + 1, r.input_length) + std::max<int64_t>(1, r.output_length);
  }
  out.trace.trajectories.reserve(chains.size());
  for (const Chain& c : chains) {
    Trajectory t;
    const BailianRequest& first = reqs[c.requests.front()];
    t.id = "bl-" + std::to_string(first.chat_id);
    t.arrival = first.timestamp;
    int64_t context = 0;
    for (size_t k = 0; k < c.requests.size(); ++k) {
      const BailianRequest& r = reqs[c.requests[k]];
      const int64_t append = std::max<int64_t>(1, r.input_length - context);  // > context by the chain rule
      const int64_t gen = std::max<int64_t>(1, r.output_length);
      if (k > 0) t.rounds.back().think = std::max(0.0, r.timestamp - reqs[c.requests[k - 1]].timestamp);
      t.rounds.push_back(Round{append, gen, 0.0});
      context += append + gen;
    }
    const BailianRequest& last = reqs[c.requests.back()];
    t.hashes = std::make_shared<BlockHashes>(BlockHashes{kBailianBlockTokens, hashed_tokens(last), last.hash_ids});
    out.trace.trajectories.push_back(std::move(t));
  }
  out.reusable_share = reusable_share(bailian_inputs(reqs), kBailianBlockTokens, kBailianBlockTokens);
  return out;
}

}  // namespace dualpath
