// Qwen-Bailian usage traces (alibaba-edu/qwen-bailian-usagetraces-anon, KVCache@ATC'25; Apache-2.0): reading with
// strict validation and conversion into native trajectories that carry the trace's 16-token block hashes.
// The format and the conversion rules are documented in traces/FORMAT.md ("Bailian format").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/workload/block_hashes.hpp"
#include "core/workload/trace.hpp"

namespace dualpath {

inline constexpr int64_t kBailianBlockTokens = 16;  // tokens per hash id in the published files

struct BailianRequest {
  int64_t chat_id = 0;
  int64_t parent_chat_id = -1;  // -1 = the first turn of its session
  double timestamp = 0;         // seconds from the trace start
  int64_t input_length = 0;
  int64_t output_length = 0;
  std::string type;             // workload tag (text, search, image, file, ...)
  int64_t turn = 0;             // the request's turn in its session (1 = first)
  std::vector<int64_t> hash_ids;
  int64_t line = 0;
};

// Reads and validates a Bailian JSONL file: exactly the keys chat_id, parent_chat_id, timestamp, input_length,
// output_length, type, turn, hash_ids; unique chat ids; timestamps non-decreasing; hash_ids covering the input in
// 16-token blocks (ceil(input/16) ids, or floor when the last partial block is not hashed). Errors name file:line.
std::vector<BailianRequest> read_bailian(const std::string& path);

struct BailianConversion {
  Trace trace;
  int64_t requests = 0;
  int64_t sessions = 0;           // requests with parent_chat_id -1, plus those whose parent is not in the file
  int64_t orphans = 0;            // of them: a parent the file does not hold (a session begun before the sample)
  int64_t continued = 0;          // requests that are a later round of their parent's trajectory
  int64_t branches = 0;           // a second child of a request (a retry or an edit): a trajectory of its own
  int64_t split = 0;              // a child whose input does not extend its parent's context: a trajectory of its own
  int64_t zero_outputs = 0;       // requests with output_length 0 (one generated token is replayed)
  std::map<std::string, int64_t> types;  // requests per type
  double reusable_share = 0;      // at 16-token blocks (whole blocks): tokens an earlier request's input held
};

// Each request's hashed input (its input, less a partial last block the file leaves unhashed), for reusable_share.
std::vector<HashedInput> bailian_inputs(const std::vector<BailianRequest>& requests);

// Turns follow parent_chat_id: a request is the next round of its parent's trajectory when it is the parent's first
// child, its input extends the parent's rebuilt context, and its hash ids start with the parent's full blocks; else
// it starts a trajectory of its own, whose reuse its hash ids still give. think = the gap between the two arrivals.
// `file` names the trace in errors ("FILE:LINE: ...").
BailianConversion convert_bailian(const std::vector<BailianRequest>& requests, const std::string& file = "Bailian");

}  // namespace dualpath
