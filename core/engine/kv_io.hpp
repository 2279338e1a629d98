// The KV-I/O facade: every point where a round's KV would move. The hit KV from storage into a DRAM buffer, each
// prefill stage's KV into HBM and out to the decode buffer, the prompt into decode HBM at the handoff, filled blocks
// back to storage, and the buffer room those moves give back. The mechanisms (cluster_*.cpp) call it there and never
// ask which policy runs:
//  - StorageKvIo (kv_io_storage.cpp) moves real bytes through the backend: every policy but the oracle;
//  - FreeKvIo (kv_io_free.cpp) moves none: the oracle's bound (every prompt is a hit, loading and sending KV take no
//    time, nothing is persisted, no buffer is held).
// The Cluster picks one at construction (PolicyFeatures::bypass_io). Private to core/engine/.
#pragma once

#include <cstdint>

#include "core/engine/cluster.hpp"

namespace dualpath {

class Cluster::KvIo {
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
  virtual int load_stage(Forward& f, int stage) = 0;
  // Stage `stage`'s KV is in HBM: buffer room the stage's layers held can go back.
  virtual void stage_loaded(const Forward& f, int stage) = 0;
  // Starts sending stage `stage`'s KV to the decode buffers; returns the transfers started (send_done after all).
  virtual int send_stage(Forward& f, int stage) = 0;
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

class Cluster::StorageKvIo final : public Cluster::KvIo {
 public:
  explicit StorageKvIo(Cluster& c) : c_(c) {}
  void round_issued(int, int64_t) override {}
  void load_hit(Request& r) override;
  bool reserves_de_room() const override { return c_.streamed_buffers(); }
  int load_stage(Forward& f, int stage) override;
  void stage_loaded(const Forward& f, int stage) override;
  int send_stage(Forward& f, int stage) override;
  void prompt_computed(Request& r) override;
  void prompt_abandoned(Request& r) override;
  bool persists_prompts() const override { return true; }
  void hand_off(Request& r) override;
  void handoff_finished(Request& r) override;
  BlockRanges claim_filled(Request& r, int64_t upto) override;
  void pe_room_back() override;
  void de_room_back() override;

 private:
  Cluster& c_;
};

class Cluster::FreeKvIo final : public Cluster::KvIo {
 public:
  explicit FreeKvIo(Cluster& c) : c_(c) {}
  void round_issued(int agent, int64_t context) override;
  void load_hit(Request& r) override;
  bool reserves_de_room() const override { return false; }
  int load_stage(Forward&, int) override { return 0; }
  void stage_loaded(const Forward&, int) override {}
  int send_stage(Forward&, int) override { return 0; }
  void prompt_computed(Request&) override {}
  void prompt_abandoned(Request&) override {}
  bool persists_prompts() const override { return false; }
  void hand_off(Request& r) override;
  void handoff_finished(Request&) override {}
  BlockRanges claim_filled(Request&, int64_t) override { return {}; }
  void pe_room_back() override {}
  void de_room_back() override {}

 private:
  Cluster& c_;
};

}  // namespace dualpath
