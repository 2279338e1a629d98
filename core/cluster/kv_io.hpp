// The KV-I/O service: every point where a round's KV would move. Each prefill stage's KV into HBM and out to the
// decode buffer, the prompt into decode HBM at the handoff, filled blocks back to storage (through the persist
// stage), and the buffer room those moves give back. The stages call it and never ask which policy runs; it ends
// its moves through the callbacks they hand it (ForwardIoListener, Done) and never calls a stage by name:
//  - StorageKvIo (kv_io_storage.cpp) moves real bytes through the backend: every policy but the oracle;
//  - FreeKvIo (kv_io.hpp) moves none: the oracle's bound (every prompt is a hit, loading and sending KV take no
//    time, nothing is persisted, no buffer is held).
// The Cluster picks one at construction (PolicyFeatures::bypass_io). The storage reads themselves are the read
// stage's (read_stage.cpp). Private to core/cluster/.
#pragma once

#include <cstdint>

#include "core/backend/backend.hpp"
#include "core/cluster/buffer_ports.hpp"
#include "core/cluster/cluster_layout.hpp"
#include "core/cluster/fault_record.hpp"
#include "core/cluster/kv_sources.hpp"
#include "core/cluster/stage_base.hpp"
#include "core/cluster/prefill_forward.hpp"
#include "core/cluster/request_accounts.hpp"
#include "core/cluster/stage.hpp"
#include "core/kv/block_index.hpp"
#include "core/metrics/activity_log.hpp"
#include "core/metrics/transfer_totals.hpp"
#include "core/vocab/request.hpp"

namespace dualpath {

// Where the service sends KV blocks to storage: the persist stage (persist_stage.hpp), which owns the writes in
// flight and the blocks decoding filled that are not yet written.
class BlockWriter {
 public:
  // Claimed blocks on their way to storage from `node` (and the agents whose write_started they carry); returns the
  // write's id, or -1 when writes are not tracked.
  virtual int64_t track(int node, const BlockRanges& blocks, std::vector<int> agents, double bytes) = 0;
  // Writes `blocks` (`bytes`) from `node`'s DRAM to storage, then `done`; `write` is its id from track().
  virtual void persist(int node, int64_t write, const BlockRanges& blocks, double bytes, Done done) = 0;
  // Blocks decoding filled on decode engine `gpu`, claimed, to be written with its next flush; the flush; their loss
  // with their engines.
  virtual void add_filled(int gpu, double bytes, std::vector<AgentWrite> writes) = 0;
  virtual void flush(const std::vector<int>& engines, const std::vector<bool>& forced, bool full_ones) = 0;
  virtual void on_engines_lost(const std::vector<int>& engines, FaultRecord& rec) = 0;

 protected:
  ~BlockWriter() = default;
};

// Where the service reports the transfers of a forward's stage as each ends (the prefill stage counts them).
class ForwardIoListener {
 public:
  virtual void load_ended(PrefillForward& f, int stage) = 0;
  virtual void send_ended(PrefillForward& f, int stage) = 0;

 protected:
  ~ForwardIoListener() = default;
};

class KvIo {
 public:
  virtual ~KvIo() = default;
  // An agent's round arrives with `context` tokens of earlier rounds.
  virtual void round_issued(int agent, int64_t context) = 0;
  // Whether KV moves at all (the oracle's does not, and holds no buffer room).
  virtual bool moves_kv() const = 0;
  // A PE-path request's first forward reserves its prompt's room in the DE buffer (streamed buffers).
  virtual bool reserves_de_room() const = 0;
  // Starts moving stage `stage`'s cached KV into HBM for forward `f`; returns the transfers started, each ending in
  // `to.load_ended`.
  virtual int load_stage(PrefillForward& f, int stage, ForwardIoListener& to) = 0;
  // Starts sending stage `stage`'s KV to the decode buffers; returns the transfers started (`to.send_ended` each).
  virtual int send_stage(PrefillForward& f, int stage, ForwardIoListener& to) = 0;
  // A request's prefill is done: its prompt's new blocks are to be persisted at the handoff (the agent's next read
  // waits for that write), or, if its attempt is lost before the handoff ends, never.
  virtual void prompt_computed(Request& r) = 0;
  virtual void prompt_abandoned(Request& r) = 0;
  // Whether a round whose first token was its last still has its prompt's persistence to come (its handoff).
  virtual bool persists_prompts() const = 0;
  // The handoff proper, decode HBM in hand: the prompt KV into HBM and its new blocks to storage; then `done`.
  // Then handoff_finished gives back what the handoff held.
  virtual void hand_off(Request& r, Done done) = 0;
  virtual void handoff_finished(Request& r) = 0;
  // Blocks of `r` filled by decoding up to token `upto` that its decode engine now persists (claimed; empty: none).
  virtual BlockRanges claim_filled(Request& r, int64_t upto) = 0;
  // Filled blocks claimed on decode engine `gpu`, to the persist stage (BlockWriter); flushed there; lost with
  // their engines.
  virtual void add_filled(int gpu, double bytes, std::vector<AgentWrite> writes) = 0;
  virtual void flush(const std::vector<int>& engines, const std::vector<bool>& forced, bool full_ones) = 0;
  virtual void engines_lost(const std::vector<int>& engines, FaultRecord& rec) = 0;
  // Buffer room came back on the PE side (reads may start) or on the DE side (reads and held-back forwards).
  virtual void pe_room_back() = 0;
  virtual void de_room_back() = 0;
};

class StorageKvIo final : public KvIo, private StageBase {
 public:
  // Moves KV through the backend (counted in `totals`, reported to `*obs`) between the buffers and ports the
  // layout and `ports` name; claims and persists blocks in the block index (written by `writer`, through to the
  // KV `sources`); gives buffer room back in the accounts, and says so through `signals`.
  StorageKvIo(const StageShared& shared, BlockIndex& blocks, TransferTotals& totals, const BufferPorts& ports,
              KvSources& sources, ActivityObserver* const& obs, StageSignals& signals, BlockWriter& writer)
      : StageBase(shared),
        blocks_(blocks),
        totals_(totals),
        ports_(ports),
        sources_(sources),
        obs_(obs),
        signals_(signals),
        writer_(writer) {}
  void round_issued(int, int64_t) override {}
  bool moves_kv() const override { return true; }
  bool reserves_de_room() const override { return layout_.streamed_buffers; }
  int load_stage(PrefillForward& f, int stage, ForwardIoListener& to) override;
  int send_stage(PrefillForward& f, int stage, ForwardIoListener& to) override;
  void prompt_computed(Request& r) override;
  void prompt_abandoned(Request& r) override;
  bool persists_prompts() const override { return true; }
  void hand_off(Request& r, Done done) override;
  void handoff_finished(Request& r) override;
  BlockRanges claim_filled(Request& r, int64_t upto) override;
  void add_filled(int gpu, double bytes, std::vector<AgentWrite> writes) override {
    writer_.add_filled(gpu, bytes, std::move(writes));
  }
  void flush(const std::vector<int>& engines, const std::vector<bool>& forced, bool full_ones) override {
    writer_.flush(engines, forced, full_ones);
  }
  void engines_lost(const std::vector<int>& engines, FaultRecord& rec) override {
    writer_.on_engines_lost(engines, rec);
  }
  void pe_room_back() override { signals_.reads_may_start(); }
  void de_room_back() override { signals_.de_room_back(); }

 private:
  void move_stage_kv(PrefillForward& f, int stage, bool load, Hop hop, Place src, Place dst, double bytes,
                     ForwardIoListener& to);

  BlockIndex& blocks_;
  TransferTotals& totals_;
  const BufferPorts& ports_;
  KvSources& sources_;
  ActivityObserver* const& obs_;
  StageSignals& signals_;
  BlockWriter& writer_;
};

class FreeKvIo final : public KvIo {
 public:
  // Marks every round's context persisted in the block index.
  explicit FreeKvIo(BlockIndex& blocks) : blocks_(blocks) {}
  void round_issued(int agent, int64_t context) override { blocks_.mark_persisted(agent, context); }
  bool moves_kv() const override { return false; }
  bool reserves_de_room() const override { return false; }
  int load_stage(PrefillForward&, int, ForwardIoListener&) override { return 0; }
  int send_stage(PrefillForward&, int, ForwardIoListener&) override { return 0; }
  void prompt_computed(Request&) override {}
  void prompt_abandoned(Request&) override {}
  bool persists_prompts() const override { return false; }
  void hand_off(Request&, Done done) override { done(); }  // the handoff ends as it starts
  void handoff_finished(Request&) override {}
  BlockRanges claim_filled(Request&, int64_t) override { return {}; }
  void add_filled(int, double, std::vector<AgentWrite>) override {}
  void flush(const std::vector<int>&, const std::vector<bool>&, bool) override {}
  void engines_lost(const std::vector<int>&, FaultRecord&) override {}
  void pe_room_back() override {}
  void de_room_back() override {}

 private:
  BlockIndex& blocks_;
};

}  // namespace dualpath
