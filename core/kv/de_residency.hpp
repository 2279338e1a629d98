// Prefixes resident in decode HBM between an agent's rounds (policy pe-pull-from-de; vLLM's decode-side pinning of
// a turn's KV blocks for decoder_kv_blocks_ttl, PR #32553): which decode engine holds each agent's last context,
// oldest first per engine, and what was kept, pulled, expired and dropped. A kept context is pinned: nothing evicts
// it for room; it goes when the agent's next round takes it or when the retention time has passed (vLLM frees
// pinned blocks by their TTL only). The HBM itself stays reserved in the engine's BufferPool by whoever holds it
// (the decode stage after a round, then the request placed on that engine); this book says whose it is, and the
// caller gives back what it drops. Pure state: core/cluster/decode_stage.cpp drives it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/kv/buffer_pool.hpp"

namespace dualpath {

class DeResidency {
 public:
  struct Entry {
    int engine = -1;
    int64_t tokens = 0;  // the context the engine holds (the round's prompt and generated tokens)
    double bytes = 0;    // its HBM, still reserved on the engine
    double since = 0;    // when its round ended (eviction is oldest first)
    uint64_t serial = 0;
  };
  // What happened to the bytes kept, over the run.
  struct Figures {
    double kept_bytes = 0;     // contexts kept at their round's end
    double taken_bytes = 0;    // taken by the agent's next round (its prefix pulled from decode HBM)
    double expired_bytes = 0;  // dropped after the retention time
    double dropped_bytes = 0;  // dropped unused: a next round it does not cover, or an engine that was lost
    int64_t kept = 0, taken = 0, expired = 0, dropped = 0;
  };

  explicit DeResidency(double retention) : retention_(retention) {}
  double retention() const { return retention_; }

  // Agent `agent`'s round ended on `engine` at `now`: its context (`tokens`, `bytes` of HBM the caller leaves
  // reserved) stays there.
  void keep(int agent, int engine, int64_t tokens, double bytes, double now) {
    Entry e{engine, tokens, bytes, now, ++serial_};
    by_engine_[engine].emplace(std::make_pair(now, e.serial), agent);
    agents_[agent] = e;
    held_ += bytes;
    peak_held_ = std::max(peak_held_, held_);
    ++figures_.kept, figures_.kept_bytes += bytes;
  }
  const Entry* find(int agent) const {
    const auto it = agents_.find(agent);
    return it == agents_.end() ? nullptr : &it->second;
  }
  // The agent's next round takes its entry: its bytes now belong to that request.
  Entry take(int agent) {
    Entry e = remove(agent);
    ++figures_.taken, figures_.taken_bytes += e.bytes;
    return e;
  }
  // Drops the agent's entry unused (a next round it cannot serve, a lost engine); the caller gives the bytes back.
  Entry drop(int agent) {
    Entry e = remove(agent);
    ++figures_.dropped, figures_.dropped_bytes += e.bytes;
    return e;
  }
  // Drops the entries kept for the retention time or longer at `now`; returns them (the caller gives their bytes back).
  std::vector<Entry> expire_until(double now) {
    std::vector<Entry> out;
    for (auto& [engine, entries] : by_engine_)
      while (!entries.empty() && entries.begin()->first.first + retention_ <= now * (1 + 1e-12)) {
        out.push_back(remove(entries.begin()->second));
        ++figures_.expired, figures_.expired_bytes += out.back().bytes;
      }
    return out;
  }
  // When `engine`'s oldest entry expires (-1: it holds none).
  double next_expiry(int engine) const {
    const auto it = by_engine_.find(engine);
    return it == by_engine_.end() || it->second.empty() ? -1 : it->second.begin()->first.first + retention_;
  }
  // The engine was lost: its entries go (their HBM went with it).
  void drop_engine(int engine) {
    const auto it = by_engine_.find(engine);
    if (it == by_engine_.end()) return;
    while (!it->second.empty()) drop(it->second.begin()->second);
  }
  double held_bytes() const { return held_; }
  double peak_held_bytes() const { return peak_held_; }
  const Figures& figures() const { return figures_; }

 private:
  Entry remove(int agent) {
    const auto it = agents_.find(agent);
    Entry e = it->second;
    by_engine_[e.engine].erase(std::make_pair(e.since, e.serial));
    agents_.erase(it);
    held_ -= e.bytes;
    return e;
  }

  double retention_;
  uint64_t serial_ = 0;
  double held_ = 0, peak_held_ = 0;
  std::unordered_map<int, Entry> agents_;
  std::map<int, std::map<std::pair<double, uint64_t>, int>> by_engine_;  // engine -> (since, serial) -> agent
  Figures figures_;
};

}  // namespace dualpath
