// The KV-I/O facade: every point where a round's KV would move. The hit KV from storage into a DRAM buffer, each
// prefill stage's KV into HBM and out to the decode buffer, the prompt into decode HBM at the handoff, filled blocks
// back to storage, and the buffer room those moves give back. The mechanisms (cluster_*.cpp) call it there and never
// ask which policy runs:
//  - StorageKvIo (kv_io_storage.cpp) moves real bytes through the backend: every policy but the oracle;
//  - FreeKvIo (kv_io_free.cpp) moves none: the oracle's bound (every prompt is a hit, loading and sending KV take no
//    time, nothing is persisted, no buffer is held).
// The Cluster picks one at construction (PolicyFeatures::bypass_io). Private to core/cluster/.
#pragma once

#include <cstdint>

#include "core/backend/backend.hpp"
#include "core/cluster/buffer_ports.hpp"
#include "core/cluster/cluster_hooks.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/phase_base.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/vocab/request.hpp"

namespace dualpath {

struct PrefillForward;
class ReadQueues;
class PrefillPipeline;
class DecodeGroups;
class StorageWrites;

class KvIo {
 public:
  virtual ~KvIo() = default;
  // An agent's round arrives with `context` tokens of earlier rounds.
  virtual void round_issued(int agent, int64_t context) = 0;
  // Both engines and the read path are chosen: load the hit KV (the request goes on to prefill when it is in).
  virtual void load_hit(Request& r) = 0;
  // A PE-path request's first forward reserves its prompt's room in the DE buffer (streamed buffers).
  virtual bool reserves_de_room() const = 0;
  // Starts moving stage `stage`'s cached KV into HBM for forward `f`; returns the transfers started (each ends in
  // stage_loaded once all have). With none started the caller marks the stage loaded itself.
  virtual int load_stage(PrefillForward& f, int stage) = 0;
  // Stage `stage`'s KV is in HBM: buffer room the stage's layers held can go back.
  virtual void stage_loaded(const PrefillForward& f, int stage) = 0;
  // Starts sending stage `stage`'s KV to the decode buffers; returns the transfers started (send_done after all).
  virtual int send_stage(PrefillForward& f, int stage) = 0;
  // A request's prefill is done: its prompt's new blocks are to be persisted at the handoff (the agent's next read
  // waits for that write), or, if its attempt is lost before the handoff ends, never.
  virtual void prompt_computed(Request& r) = 0;
  virtual void prompt_abandoned(Request& r) = 0;
  // Whether a round whose first token was its last still has its prompt's persistence to come (its handoff).
  virtual bool persists_prompts() const = 0;
  // The handoff proper, decode HBM in hand: the prompt KV into HBM and its new blocks to storage; ends in
  // DecodeGroups::handoff_done. Then handoff_finished gives back what the handoff held.
  virtual void hand_off(Request& r) = 0;
  virtual void handoff_finished(Request& r) = 0;
  // Blocks of `r` filled by decoding up to token `upto` that this decode engine now persists (claimed; empty: none).
  virtual BlockRanges claim_filled(Request& r, int64_t upto) = 0;
  // Buffer room came back on the PE side (reads may start) or on the DE side (reads and held-back forwards).
  virtual void pe_room_back() = 0;
  virtual void de_room_back() = 0;
};

class StorageKvIo final : public KvIo, private PhaseBase {
 public:
  // Moves KV through the backend (counted in `totals`, reported to `*obs`) between the buffers and ports the
  // layout and `ports` name; claims and persists blocks in the block index (through `writes`, written through to
  // the KV `sources`); gives buffer room back in the accounts; a read whose SNIC is down goes back to the Cluster
  // (hooks). Ends its moves in the phases.
  StorageKvIo(const PhaseShared& shared, BlockIndex& blocks, TransferTotals& totals, const BufferPorts& ports,
              KvSources& sources, ActivityObserver* const& obs, ClusterHooks& hooks, ReadQueues& reads,
              PrefillPipeline& prefill, DecodeGroups& decode, StorageWrites& writes)
      : PhaseBase(shared),
        blocks_(blocks),
        totals_(totals),
        ports_(ports),
        sources_(sources),
        obs_(obs),
        hooks_(hooks),
        reads_(reads),
        prefill_(prefill),
        decode_(decode),
        writes_(writes) {}
  void round_issued(int, int64_t) override {}
  void load_hit(Request& r) override;
  bool reserves_de_room() const override { return layout_.streamed_buffers; }
  int load_stage(PrefillForward& f, int stage) override;
  void stage_loaded(const PrefillForward& f, int stage) override;
  int send_stage(PrefillForward& f, int stage) override;
  void prompt_computed(Request& r) override;
  void prompt_abandoned(Request& r) override;
  bool persists_prompts() const override { return true; }
  void hand_off(Request& r) override;
  void handoff_finished(Request& r) override;
  BlockRanges claim_filled(Request& r, int64_t upto) override;
  void pe_room_back() override;
  void de_room_back() override;

 private:
  BlockIndex& blocks_;
  TransferTotals& totals_;
  const BufferPorts& ports_;
  KvSources& sources_;
  ActivityObserver* const& obs_;
  ClusterHooks& hooks_;
  ReadQueues& reads_;
  PrefillPipeline& prefill_;
  DecodeGroups& decode_;
  StorageWrites& writes_;
};

class FreeKvIo final : public KvIo {
 public:
  // Marks every round's context persisted in the block index; hands requests straight on to the phases.
  FreeKvIo(Backend& be, BlockIndex& blocks, PrefillPipeline& prefill, DecodeGroups& decode)
      : be_(be), blocks_(blocks), prefill_(prefill), decode_(decode) {}
  void round_issued(int agent, int64_t context) override;
  void load_hit(Request& r) override;
  bool reserves_de_room() const override { return false; }
  int load_stage(PrefillForward&, int) override { return 0; }
  void stage_loaded(const PrefillForward&, int) override {}
  int send_stage(PrefillForward&, int) override { return 0; }
  void prompt_computed(Request&) override {}
  void prompt_abandoned(Request&) override {}
  bool persists_prompts() const override { return false; }
  void hand_off(Request& r) override;
  void handoff_finished(Request&) override {}
  BlockRanges claim_filled(Request&, int64_t) override { return {}; }
  void pe_room_back() override {}
  void de_room_back() override {}

 private:
  Backend& be_;
  BlockIndex& blocks_;
  PrefillPipeline& prefill_;
  DecodeGroups& decode_;
};

}  // namespace dualpath
