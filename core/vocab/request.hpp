// One round of one agent as it moves through the cluster, with its timeline. Vocabulary of the whole core
// (engines, scheduler, metrics), so it lives below all of them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/vocab/wait_cause.hpp"
#include "core/vocab/chunked_vector.hpp"

namespace dualpath {

// A side of a request's (PE, DE) pair, the one side enum of the core. Pe and De name its prefill engine's node and
// its decode engine's node: the halves of its storage read go through them, and the DRAM buffers it holds room in
// are theirs. As a read path (which node's SNIC reads the hit KV) it may also be Split (both: the first
// `Request::ReadSlice::pe_hit` tokens through the PE node, the rest through the DE node; policy dualpath-split) or
// Unset (not chosen yet).
// Pe, De: which node's SNIC reads the hit; Split: both; DeHbm: none, the hit is resident in the decode engine's HBM
// and pulled from there GPU to GPU (pe-pull-from-de).
enum class ReadSide : uint8_t { Unset, Pe, De, Split, DeHbm };
inline const char* side_name(ReadSide s) {
  return s == ReadSide::De      ? "de"
         : s == ReadSide::Pe    ? "pe"
         : s == ReadSide::Split ? "split"
         : s == ReadSide::DeHbm ? "de-hbm"
                                : "-";
}
// Whether a request's hit comes from its DE node (read there, or kept in its decode engine's HBM), not the PE's.
inline bool hit_from_de(ReadSide s) { return s == ReadSide::De || s == ReadSide::DeHbm; }
// The two nodes of the pair, and the label a report gives each ("PE", "DE").
inline constexpr ReadSide kNodeSides[] = {ReadSide::Pe, ReadSide::De};
inline constexpr ReadSide other_side(ReadSide s) { return s == ReadSide::Pe ? ReadSide::De : ReadSide::Pe; }
inline const char* node_label(ReadSide s) { return s == ReadSide::Pe ? "PE" : "DE"; }
// A node side's index in per-side arrays: Pe 0, De 1.
inline constexpr size_t side_index(ReadSide s) { return s == ReadSide::De ? 1 : 0; }
// One value per node side (Pe, De).
template <class T>
struct PerSide {
  T v[2]{};
  T& operator[](ReadSide s) { return v[side_index(s)]; }
  const T& operator[](ReadSide s) const { return v[side_index(s)]; }
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

// The state of one half of a request's storage read (through the PE node or through the DE node).
enum class ReadHalf : uint8_t { None, Queued, Reading, Done };

class ReadStage;
class FreeReads;
class PrefillStage;
class DecodeStage;
class PlacementStage;

// The request: the shared record (identity, the round's shape, its engines, its timeline and its accounts) and one
// slice per stage of core/cluster/ (stage.hpp). Everyone reads a slice; only its stage changes it, through the
// slice's own methods (private, the stage a friend), so that what a stage keeps of a request cannot be changed from
// another room. A fault reaches a slice through its stage's fault hooks (on_lost, ...).
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
  double hit_bytes = 0;     // hit * KV bytes per token (all layers)
  double prompt_bytes = 0;  // prompt * KV bytes per token

  // The placement stage's slice: whether a fetch has seen it.
  class PlacementSlice {
   public:
    bool pe_seen() const { return pe_seen_; }  // a PE group leader's fetch has (waiting after that is PE admission)
    bool de_seen() const { return de_seen_; }  // a DE group leader's fetch has (waiting after that is DE HBM)

   private:
    friend class dualpath::PlacementStage;
    bool pe_seen_ = false, de_seen_ = false;
  } place;

  // The read stage's slice: the read path and the attempt's storage read.
  class ReadSlice {
   public:
    // Which node's SNIC reads the hit KV, and the hit tokens (and bytes) read through the PE node (Pe: hit, De: 0,
    // Split: a block-aligned part).
    ReadSide side() const { return side_; }
    int64_t pe_hit() const { return pe_hit_; }
    double pe_hit_bytes() const { return pe_hit_bytes_; }
    // The attempt's storage read, per half (through the PE node and through the DE node; a Pe or De read has one
    // half), and how many halves are in state `h`.
    ReadHalf half(ReadSide s) const { return half_[s]; }
    int halves(ReadHalf h) const { return (half_[ReadSide::Pe] == h) + (half_[ReadSide::De] == h); }
    // Abandoned attempts so far, so that a half still in flight from one is ignored.
    int epoch() const { return epoch_; }
    int retries() const { return retries_; }  // storage reads of this round that failed and were retried
    // Decode-side prefetch (policy de-prefetch): the DE node's own storage read of the whole hit into its buffer,
    // beside a PE-path read (None: the request has none; Done: the DE buffer holds the hit).
    ReadHalf prefetch() const { return prefetch_; }
    // GPUDirect Storage (topology.storage.gdr): the PE GPU's HBM its PE-path read holds (its hit, read straight
    // there, and the room its prompt's new KV takes), from its admission until its prefill ends. 0: none.
    double pe_hbm_bytes() const { return pe_hbm_bytes_; }
    // Sets the path (core/cluster/read_path.hpp keeps its rules: whole blocks on each side).
    void set_path(ReadSide side, int64_t pe_hit, double pe_hit_bytes) {
      side_ = side, pe_hit_ = pe_hit, pe_hit_bytes_ = pe_hit_bytes;
    }

   private:
    friend class dualpath::ReadStage;
    friend class dualpath::PrefillStage;  // gives a gdr read's HBM back when the prefill ends
    void set_half(ReadSide s, ReadHalf h) { half_[s] = h; }
    void abandon() { ++epoch_; }
    void retried() { ++retries_; }
    void set_prefetch(ReadHalf h) { prefetch_ = h; }
    void set_pe_hbm(double bytes) { pe_hbm_bytes_ = bytes; }
    ReadSide side_ = ReadSide::Unset;
    int64_t pe_hit_ = 0;
    double pe_hit_bytes_ = 0;
    PerSide<ReadHalf> half_{{ReadHalf::None, ReadHalf::None}};
    int epoch_ = 0;
    int retries_ = 0;
    ReadHalf prefetch_ = ReadHalf::None;
    double pe_hbm_bytes_ = 0;
  } read;

  // The prefill stage's slice: fresh tokens already computed (chunked prefill).
  class PrefillSlice {
   public:
    int64_t computed() const { return computed_; }

   private:
    friend class dualpath::PrefillStage;
    int64_t computed_ = 0;
  } prefill;

  // The decode stage's slice (the prefill stage writes the first token's count).
  class DecodeSlice {
   public:
    int64_t generated() const { return generated_; }  // tokens generated so far, counting the first token
    // Tokens of the sequence whose Full Blocks have been written or queued for writing.
    int64_t persisted_upto() const { return persisted_upto_; }
    // In a decode group's batch (joining, boarded or active) until the chunk it finished in ends: the chunk's end
    // still reads it (a round that finished inside a chunk stays in the batch until then).
    bool in_batch() const { return in_batch_; }
    // pe-pull-from-de: the decode HBM it holds since it was placed on the engine that kept its agent's last context,
    // which covers its hit (that context and the rest of its prompt and generation). 0: not placed so.
    double resident_bytes() const { return resident_bytes_; }

   private:
    friend class dualpath::DecodeStage;
    friend class dualpath::PrefillStage;  // the first token
    int64_t generated_ = 0;
    double resident_bytes_ = 0;
    int64_t persisted_upto_ = 0;
    bool in_batch_ = false;
  } decode;

  // This attempt was lost with a node (fault node-down): nothing of it runs on, and its round restarts as a new
  // request (the row of a lost attempt in requests.csv has done = -1).
  bool lost = false;
  double lost_at = -1;  // when (simulated seconds)
  // The accounts (core/cluster/request_accounts.hpp): DRAM buffer bytes it holds on its PE node (hit KV) and DE
  // node (prompt KV, until the handoff ends), and what it waits for now and since when (the "what binds" report,
  // core/metrics/wait_report.hpp).
  PerSide<double> buffer_bytes;
  WaitCause wait_cause = WaitCause::Fetch;
  double wait_since = 0;
  RequestTimes t;
};

// Every request of a run, indexed by id (addresses stay valid as requests are added).
using RequestLog = ChunkedVector<Request>;

}  // namespace dualpath
