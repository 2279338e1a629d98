// Mooncake-format request traces (FAST'25 release and same-schema files): reading with strict validation and
// conversion into native agent trajectories by rebuilding turn chains from shared hash prefixes.
// The chain rule and its approximations are documented in traces/FORMAT.md and docs/workload.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/workload/block_hashes.hpp"
#include "core/workload/trace.hpp"

namespace dualpath {

inline constexpr int64_t kMooncakeBlockTokens = 512;  // tokens per hash id in the Mooncake traces

struct MooncakeRequest {
  double timestamp_ms = 0;        // as in the file (quantised into ~3 s buckets)
  int64_t input_length = 0;
  int64_t output_length = 0;
  std::vector<int64_t> hash_ids;  // one per 512-token block of the input, prefix-chained
  int64_t line = 0;               // line number in the file (for ids and messages)
};

// Reads and validates a Mooncake JSONL file: required keys timestamp, input_length, output_length, hash_ids and
// no others; non-negative integers; input_length >= 1; len(hash_ids) == ceil(input_length / 512);
// timestamps non-decreasing. Blank lines are skipped; an empty file is an error.
std::vector<MooncakeRequest> read_mooncake(const std::string& path);

struct MooncakeConversion {
  Trace trace;                      // one trajectory per chain, in order of the chain's first request
  int64_t requests = 0;
  int64_t chains = 0;               // trajectories (single requests count as one-round chains)
  int64_t multi_turn_chains = 0;    // chains with at least two rounds
  int64_t continued_requests = 0;   // requests attached to an earlier request's chain
  int64_t clamped_appends = 0;      // continuations whose input was shorter than the rebuilt context (append := 1)
  int64_t split_requests = 0;       // with hashes: such requests start a chain of their own instead
  int common_prefix_blocks = 0;     // leading blocks shared by every request (system prompt); never a chain link
  int64_t shared_prefix_chains = 0; // chains whose first request shares a prefix with an earlier chain ("parent")
  double reusable_share = 0;        // share of input tokens in blocks already seen in an earlier request
};

// Each request's input and ids, for reusable_share at another block size.
std::vector<HashedInput> mooncake_inputs(const std::vector<MooncakeRequest>& requests);

// How a converted trace carries reuse between conversations (traces/FORMAT.md):
// - Hashes: each trajectory carries its last request's hash ids ("hashes"), so any block any other request had is
//   found whatever the conversation; a request whose input is shorter than its chain's rebuilt context starts a
//   chain of its own (its content is then exact) instead of being clamped.
// - Prefix: one "parent"/"shared" per chain (the first request's reuse only), as before hashes.
enum class ReuseForm : uint8_t { Hashes, Prefix };

// Rebuilds turn chains (see mooncake.cpp for the rule) and spreads each timestamp bucket evenly by file order.
MooncakeConversion convert_mooncake(const std::vector<MooncakeRequest>& requests, ReuseForm reuse = ReuseForm::Prefix);

}  // namespace dualpath
