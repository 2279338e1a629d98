// One round of one agent as it moves through the cluster, with its timeline. Vocabulary of the whole core
// (engines, scheduler, metrics), so it lives below all of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/vocab/wait_cause.hpp"
#include "core/vocab/chunked_vector.hpp"

namespace dualpath {

// Which node's SNIC reads the request's hit KV: the PE node's, the DE node's, or both (Split: the first
// `Request::pe_hit` tokens through the PE node, the rest through the DE node; policy dualpath-split).
enum class ReadSide : uint8_t { Unset, Pe, De, Split };
inline const char* side_name(ReadSide s) {
  return s == ReadSide::De ? "de" : s == ReadSide::Pe ? "pe" : s == ReadSide::Split ? "split" : "-";
}

// A request's two nodes: its prefill engine's (Pe) and its decode engine's (De). The halves of its storage read go
// through them, and the DRAM buffers it holds room in are theirs.
enum class NodeSide : uint8_t { Pe, De };
inline constexpr NodeSide kNodeSides[] = {NodeSide::Pe, NodeSide::De};
inline constexpr NodeSide other_side(NodeSide s) { return s == NodeSide::Pe ? NodeSide::De : NodeSide::Pe; }
inline const char* side_name(NodeSide s) { return s == NodeSide::Pe ? "PE" : "DE"; }
// One value per side.
template <class T>
struct PerSide {
  T v[2]{};
  T& operator[](NodeSide s) { return v[static_cast<size_t>(s)]; }
  const T& operator[](NodeSide s) const { return v[static_cast<size_t>(s)]; }
};

// Timestamps (seconds); -1 = not reached. TTFT = first_token - arrival; the breakdown is
// queue = scheduled - arrival, allocate = read_start - scheduled, read = read_end - read_start,
// prefill = first_token - read_end (see docs/metrics.md).
struct RequestTimes {
  double arrival = -1;
  double pe_assigned = -1;
  double de_assigned = -1;
  double read_start = -1;
  double read_end = -1;
  double prefill_start = -1;
  double first_token = -1;
  double handoff_start = -1;
  double handoff_end = -1;
  double second_token = -1;
  double done = -1;
  double scheduled() const { return pe_assigned > de_assigned ? pe_assigned : de_assigned; }
};

struct Request {
  int64_t id = -1;
  int agent = -1;
  int round = -1;
  int64_t prompt = 0;   // tokens of the prompt: context + append
  int64_t hit = 0;      // tokens whose KV is loaded from storage (block-aligned persisted prefix)
  int64_t fresh = 0;    // prompt - hit: tokens prefilled now
  int64_t gen = 0;      // tokens to generate (the first comes from the PE)
  int pe = -1;          // global GPU index of the prefill engine
  int de = -1;          // global GPU index of the decode engine
  ReadSide side = ReadSide::Unset;
  int64_t pe_hit = 0;       // hit tokens read through the PE node's SNIC (Pe: hit, De: 0, Split: a block-aligned part)
  // The attempt's storage read, per half (through the PE node and through the DE node; a Pe or De read has one
  // half). `read_epoch` counts abandoned attempts, so that a half still in flight from one is ignored.
  enum class Half : uint8_t { None, Queued, Reading, Done };
  PerSide<Half> half{{Half::None, Half::None}};
  int read_epoch = 0;
  int halves(Half h) const { return (half[NodeSide::Pe] == h) + (half[NodeSide::De] == h); }
  double hit_bytes = 0;     // hit * KV bytes per token (all layers)
  double prompt_bytes = 0;  // prompt * KV bytes per token
  double pe_hit_bytes = 0;  // pe_hit * KV bytes per token
  int64_t prefilled = 0;    // fresh tokens already computed (chunked prefill)
  int64_t generated = 0;    // tokens generated so far, counting the first token
  int64_t persisted_upto = 0;  // tokens of the sequence whose Full Blocks have been written or queued
  int read_retries = 0;        // storage reads of this round that failed and were retried
  // DRAM buffer bytes it holds on its PE node (hit KV) and DE node (prompt KV, until the handoff ends).
  PerSide<double> buffer_bytes;
  // This attempt was lost with a node (fault node-down): nothing of it runs on, and its round restarts as a new
  // request (the row of a lost attempt in requests.csv has done = -1).
  bool lost = false;
  double lost_at = -1;  // when (simulated seconds)
  bool pe_fetch_seen = false;  // a PE group leader's fetch has seen it (waiting after that is PE admission)
  bool de_fetch_seen = false;  // a DE group leader's fetch has seen it (waiting after that is DE HBM)
  // In a decode group's batch (joining, boarded or active) until the chunk it finished in ends: the chunk's end
  // still reads it (a round that finished inside a chunk stays in the batch until then).
  bool in_decode_batch = false;
  // What it waits for now and since when (the "what binds" report, core/metrics/wait_report.hpp).
  WaitCause wait_cause = WaitCause::Fetch;
  double wait_since = 0;
  RequestTimes t;
};

// Every request of a run, indexed by id (addresses stay valid as requests are added).
using RequestLog = ChunkedVector<Request>;

}  // namespace dualpath
