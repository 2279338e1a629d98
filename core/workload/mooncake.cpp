#include "core/config/input_file.hpp"
#include "core/workload/mooncake.hpp"

#include <algorithm>
#include <optional>
#include <fstream>
#include <unordered_map>

#include "core/config/input_error.hpp"
#include "core/workload/json_fields.hpp"
#include "core/workload/trace_io.hpp"

namespace dualpath {

using workload::get_int;
using workload::kMaxTokens;

std::vector<MooncakeRequest> read_mooncake(const std::string& path) {
  std::ifstream in = open_input_file(path, "Mooncake trace");
  std::vector<MooncakeRequest> out;
  workload::for_each_record(in, path, "Mooncake request", {"timestamp", "input_length", "output_length", "hash_ids"},
                            [&](const nlohmann::json& j, const std::string& where, int64_t lineno) {
    MooncakeRequest r;
    r.line = lineno;
    r.timestamp_ms = workload::get_number(j["timestamp"], where, "timestamp (milliseconds)", 0,
                                         1000 * workload::kMaxTraceSeconds);
    r.input_length = get_int(j["input_length"], where, "input_length", 1, kMaxTokens);
    r.output_length = get_int(j["output_length"], where, "output_length", 0, kMaxTokens);
    const int64_t blocks = (r.input_length + kMooncakeBlockTokens - 1) / kMooncakeBlockTokens;
    if (j["hash_ids"].is_array() && static_cast<int64_t>(j["hash_ids"].size()) != blocks)
      throw InputError(where, "hash_ids: expected ceil(input_length/512) = " + std::to_string(blocks) +
                                  " ids for input_length " + std::to_string(r.input_length) + ", found " +
                                  std::to_string(j["hash_ids"].size()));
    r.hash_ids = workload::get_ids(j["hash_ids"], where, "hash_ids");
    if (!out.empty() && r.timestamp_ms < out.back().timestamp_ms)
      throw InputError(where, "timestamp: expected non-decreasing timestamps, found " + format_decimal(r.timestamp_ms) +
                                  " after " + format_decimal(out.back().timestamp_ms));
    out.push_back(std::move(r));
  });
  return out;
}

std::vector<HashedInput> mooncake_inputs(const std::vector<MooncakeRequest>& reqs) {
  std::vector<HashedInput> in;
  in.reserve(reqs.size());
  for (const auto& r : reqs) in.push_back(HashedInput{r.input_length, &r.hash_ids});
  return in;
}

namespace {

// Arrival times in seconds: the file quantises timestamps into ~3 s buckets, so the k requests of a bucket
// are spread evenly over the bucket by file order (i-th at T + w*i/k), w = gap to the next distinct timestamp;
// the last bucket uses the median gap. Deterministic, order-preserving, and keeps each bucket's count.
std::vector<double> spread_arrivals(const std::vector<MooncakeRequest>& reqs) {
  std::vector<size_t> starts;  // first index of each bucket
  for (size_t i = 0; i < reqs.size(); ++i)
    if (i == 0 || reqs[i].timestamp_ms != reqs[i - 1].timestamp_ms) starts.push_back(i);
  std::vector<double> widths;
  for (size_t b = 0; b + 1 < starts.size(); ++b)
    widths.push_back(reqs[starts[b + 1]].timestamp_ms - reqs[starts[b]].timestamp_ms);
  double last_width = 0;
  if (!widths.empty()) {
    std::vector<double> sorted = widths;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
    last_width = sorted[sorted.size() / 2];
  }
  std::vector<double> t(reqs.size());
  for (size_t b = 0; b < starts.size(); ++b) {
    const size_t end = b + 1 < starts.size() ? starts[b + 1] : reqs.size();
    const double w = b < widths.size() ? widths[b] : last_width;
    const double k = static_cast<double>(end - starts[b]);
    for (size_t i = starts[b]; i < end; ++i)
      t[i] = (reqs[starts[b]].timestamp_ms + w * static_cast<double>(i - starts[b]) / k) / 1000.0;
  }
  return t;
}

// Hash of the first k ids, extended one id at a time (so all prefixes of a request cost O(length)).
uint64_t extend_hash(uint64_t h, int64_t id) {
  h ^= static_cast<uint64_t>(id) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDULL;
}

struct PrefixKey {
  size_t blocks;
  uint64_t hash;
  bool operator==(const PrefixKey&) const = default;
};
struct PrefixKeyHash {
  size_t operator()(const PrefixKey& k) const { return k.hash ^ (k.blocks * 0x9E3779B97F4A7C15ULL); }
};

int common_prefix(const std::vector<MooncakeRequest>& reqs) {
  size_t c = reqs.front().hash_ids.size();
  for (const auto& r : reqs) {
    size_t k = 0;
    while (k < c && k < r.hash_ids.size() && r.hash_ids[k] == reqs.front().hash_ids[k]) ++k;
    c = k;
  }
  return static_cast<int>(c);
}

}  // namespace

// Chain rule. Request r continues an earlier request p when
//   (1) p's *full* blocks (floor(input/512) ids; p's last partial block gets a new id once the next turn fills
//       it) are a prefix of r's hash_ids,
//   (2) that prefix is longer than the blocks every request shares (the common system prompt), and
//   (3) p's input is shorter than r's (a later turn of a conversation only grows).
// Among matches, only the longest matching prefix counts (a shorter one is a different conversation that
// shares a document or prompt); within it the most recent p that no other request has continued yet is taken,
// so chains are linear. If all of them are taken, r is a branch (a retry or regeneration) and starts a new
// chain: its reuse still counts in reusable_share but not as a turn.
MooncakeConversion convert_mooncake(const std::vector<MooncakeRequest>& reqs, ReuseForm reuse) {
  const bool hashes = reuse == ReuseForm::Hashes;
  MooncakeConversion out;
  out.requests = static_cast<int64_t>(reqs.size());
  if (reqs.empty()) return out;
  out.common_prefix_blocks = common_prefix(reqs);
  const auto common = static_cast<size_t>(out.common_prefix_blocks);
  const std::vector<double> arrival = spread_arrivals(reqs);

  std::unordered_map<PrefixKey, std::vector<size_t>, PrefixKeyHash> by_full_prefix;
  std::vector<bool> continued(reqs.size(), false);
  std::vector<size_t> chain_of(reqs.size());
  std::vector<std::vector<size_t>> chains;
  std::vector<int64_t> chain_context;  // per chain: the rebuilt context after its last request (appends + outputs)
  std::unordered_map<int64_t, size_t> holder_of;  // block id -> the first request that had it (ids are prefix-chained)
  struct Share {
    size_t chain = 0;
    int64_t tokens = 0;
  };
  std::vector<std::optional<Share>> chain_share;  // per chain: the prefix its first request shares with an earlier chain
  double reusable_tokens = 0, input_tokens = 0;

  std::vector<uint64_t> prefix_hash;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const auto& r = reqs[i];
    const auto& ids = r.hash_ids;
    prefix_hash.assign(ids.size() + 1, 0);
    for (size_t k = 0; k < ids.size(); ++k) prefix_hash[k + 1] = extend_hash(prefix_hash[k], ids[k]);

    // Reusable prefix: the leading run of blocks some earlier request already had (ids are prefix-chained).
    size_t hit = 0;
    while (hit < ids.size() && holder_of.count(ids[hit])) ++hit;
    reusable_tokens += static_cast<double>(std::min(static_cast<int64_t>(hit) * kMooncakeBlockTokens, r.input_length));
    input_tokens += static_cast<double>(r.input_length);
    // The first request that held r's whole reusable prefix (an id at position k implies the k before it): the
    // content's first owner, so that shared prefixes point at their origin rather than forming long chains.
    constexpr size_t kNone = static_cast<size_t>(-1);
    const size_t holder = hit > 0 ? holder_of.at(ids[hit - 1]) : kNone;
    for (const int64_t id : ids) holder_of.emplace(id, i);

    std::optional<size_t> parent;
    for (size_t k = ids.size(); k > common && !parent; --k) {
      const auto it = by_full_prefix.find(PrefixKey{k, prefix_hash[k]});
      if (it == by_full_prefix.end()) continue;
      bool matched = false;
      for (auto c = it->second.rbegin(); c != it->second.rend(); ++c) {
        const auto& p = reqs[*c];
        if (!std::equal(ids.begin(), ids.begin() + static_cast<long>(k), p.hash_ids.begin())) continue;  // collision
        matched = true;
        if (!continued[*c] && p.input_length < r.input_length) {
          parent = *c;
          break;
        }
      }
      if (matched) break;  // longest matching prefix found (taken or not): do not fall back to shorter ones
    }
    if (parent && hashes && r.input_length - chain_context[chain_of[*parent]] < 1) {
      parent.reset();  // the input is shorter than the chain's rebuilt context: its content is exact on its own
      ++out.split_requests;
    }
    if (parent) {
      continued[*parent] = true;
      chain_of[i] = chain_of[*parent];
      chains[chain_of[i]].push_back(i);
      ++out.continued_requests;
    } else {
      chain_of[i] = chains.size();
      chains.push_back({i});
      // A new conversation that starts with content an earlier one had (a system prompt, tool definitions, a
      // document): its prefix is that conversation's, block for block.
      std::optional<Share> share;
      chain_context.push_back(0);
      if (holder != kNone && !hashes) {
        const int64_t tokens = std::min({static_cast<int64_t>(hit) * kMooncakeBlockTokens, r.input_length,
                                         reqs[holder].input_length});
        share = Share{chain_of[holder], tokens};
        ++out.shared_prefix_chains;
      }
      chain_share.push_back(share);
    }
    int64_t& context = chain_context[chain_of[i]];
    context = std::max(context + 1, r.input_length) + std::max<int64_t>(1, r.output_length);  // as the rounds rebuild it
    const auto full = static_cast<size_t>(r.input_length / kMooncakeBlockTokens);
    if (full > common) by_full_prefix[PrefixKey{full, prefix_hash[full]}].push_back(i);
  }

  // Rounds: append = new input beyond the rebuilt context (earlier inputs' appends + outputs), at least 1 token;
  // the pause before a turn is the gap between the two requests' arrivals (service time is unknown, so this
  // is an upper bound on the think time).
  out.trace.trajectories.reserve(chains.size());
  std::vector<std::string> where;
  for (size_t c = 0; c < chains.size(); ++c) {
    const auto& chain = chains[c];
    Trajectory t;
    t.id = "mc-" + std::to_string(reqs[chain.front()].line);
    t.arrival = arrival[chain.front()];
    if (const auto& share = chain_share[c]) {
      t.parent = "mc-" + std::to_string(reqs[chains[share->chain].front()].line);
      t.shared = share->tokens;
    }
    where.push_back("mooncake line " + std::to_string(reqs[chain.front()].line));
    if (hashes) {  // the last request's ids: every earlier request's full blocks are a prefix of them (rule 1)
      const auto& last = reqs[chain.back()];
      t.hashes = std::make_shared<BlockHashes>(BlockHashes{kMooncakeBlockTokens, last.input_length, last.hash_ids});
    }
    int64_t context = 0;
    for (size_t k = 0; k < chain.size(); ++k) {
      const auto& r = reqs[chain[k]];
      int64_t append = r.input_length - context;
      if (append < 1) {
        append = 1;
        ++out.clamped_appends;
      }
      const int64_t gen = std::max<int64_t>(1, r.output_length);
      if (k > 0) t.rounds.back().think = std::max(0.0, arrival[chain[k]] - arrival[chain[k - 1]]);
      t.rounds.push_back(Round{append, gen, 0.0});
      context += append + gen;
    }
    if (chain.size() >= 2) ++out.multi_turn_chains;
    out.trace.trajectories.push_back(std::move(t));
  }
  // The parent chain's stream holds the shared tokens unless its rebuilt rounds came out shorter than the request
  // that had them (they cannot: a chain's stream covers every input of its requests); link_parents checks it.
  link_parents(out.trace, where);
  out.chains = static_cast<int64_t>(chains.size());
  out.reusable_share = input_tokens > 0 ? reusable_tokens / input_tokens : 0;
  return out;
}

}  // namespace dualpath
