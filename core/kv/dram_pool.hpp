// A distributed DRAM KV pool (policy dram-pool; the paper's SGL(MC) baseline: SGLang HiCache over Mooncake Store,
// digest §7.5, §A.4): every node gives `capacity` bytes of its DRAM to a pool that caches persisted Full Blocks;
// storage still holds every block (write-through), so a block that is not in the pool is read from storage.
//
// Blocks are keyed as the block index keys them (core/kv/block_index.hpp): a stream of content and a block number,
// so content several agents share is pooled once. Placement: a stream's blocks live on one holding node,
// `stream mod nodes` (Mooncake spreads objects over all segments; one holder per stream keeps one flow per read
// and an exact per-node LRU; docs/dram-pool.md). Eviction (PoolEviction::Lru, default): least recently used
// block first, per node. A read touches a stream's blocks in ascending order and a write appends after them, so
// within a stream the lowest block is the least recently used: the pool orders streams by last use and evicts the
// least recently used stream's lowest blocks first (blocks of a shared stream that several agents write out of
// order are the one approximation).
// Eviction::None keeps what is in and refuses blocks that do not fit (the test that eviction is what makes the
// working-set law hold).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/config/choices.hpp"

namespace dualpath {

class DramPool {
 public:
  // `capacity_blocks` per node; `block_bytes` for the byte figures.
  DramPool(int nodes, int64_t capacity_blocks, double block_bytes, PoolEviction eviction);

  int holder(int stream) const { return stream % nodes_; }
  // The blocks among [first, last) of `stream` that the pool holds, as ascending disjoint ranges; the stream is
  // marked used now.
  struct Span {
    int64_t first = 0, last = 0;
    int64_t blocks() const { return last - first; }
  };
  std::vector<Span> lookup(int stream, int64_t first, int64_t last);
  // Blocks [first, last) of `stream` arrived in the pool (written through from a decode node); blocks it holds
  // already are not counted twice.
  void put(int stream, int64_t first, int64_t last, double now);

  // What the stream holds, without using it (tests, reports), and how many of blocks [first, last) it holds.
  std::vector<Span> peek(int stream) const;
  int64_t held_blocks(int stream, int64_t first, int64_t last) const;

  // Figures over the run.
  int nodes() const { return nodes_; }
  int64_t capacity_blocks() const { return capacity_; }
  double block_bytes() const { return block_bytes_; }
  int64_t used_blocks() const;                // now, over all nodes
  int64_t peak_node_blocks() const { return peak_node_; }  // the fullest node's most
  double mean_used_blocks(double end) const;  // time-weighted mean over [0, end), all nodes
  int64_t put_blocks() const { return put_; }            // blocks added
  int64_t refused_blocks() const { return refused_; }    // blocks that did not fit (Eviction::None)
  int64_t evicted_blocks() const { return evicted_; }

 private:
  struct Held {
    std::map<int64_t, int64_t> ranges;  // first -> last of each held range, disjoint and not adjacent
    int64_t blocks = 0;
    std::list<int>::iterator lru;  // its place in the node's LRU order (front: least recently used)
  };
  static std::vector<Span> overlap(const Held& h, int64_t first, int64_t last);  // blocks of [first, last) held
  static std::vector<Span> gaps(const Held& h, int64_t first, int64_t last);     // blocks of [first, last) not held
  static void insert(Held& h, int64_t first, int64_t last);
  static int64_t drop_lowest(Held& h, int64_t blocks);  // the blocks it dropped
  struct Node {
    int64_t used = 0;
    std::list<int> lru;  // streams holding blocks here, least recently used first
  };
  void touch(Node& n, Held& h, int stream);
  void change(Node& n, int64_t blocks, double now);

  int nodes_;
  int64_t capacity_;
  double block_bytes_;
  PoolEviction eviction_;
  std::vector<Node> node_;
  std::unordered_map<int, Held> held_;
  int64_t used_ = 0, peak_node_ = 0, put_ = 0, refused_ = 0, evicted_ = 0;
  double last_ = 0, used_seconds_ = 0;  // integral of used_ (blocks x s) up to last_
};

}  // namespace dualpath
