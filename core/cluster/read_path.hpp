// A request's read path: which node's SNIC reads its hit KV (ReadSide), and for a split read how many of its hit
// tokens go through the PE node (whole blocks on each side). The read stage sets it when a request arrives
// (the policy's choice) and when a failed or faulted read moves; the oracle's reads (FreeReads) set it too, for
// the report. Private to core/cluster/.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/cluster/cluster_layout.hpp"
#include "core/kv/block_index.hpp"
#include "core/vocab/request.hpp"

namespace dualpath {

// Split: the first pe_hit tokens through the PE node, the rest through the DE node; a split with nothing on one
// side becomes a one-sided read.
inline void set_read_path(Request& r, ReadSide side, int64_t pe_hit, const BlockIndex& blocks,
                          const ClusterLayout& layout) {
  pe_hit = blocks.aligned(std::clamp<int64_t>(pe_hit, 0, r.hit));  // whole blocks on each side
  if (side == ReadSide::Split && pe_hit <= 0) side = ReadSide::De;
  if (side == ReadSide::Split && pe_hit >= r.hit) side = ReadSide::Pe;
  r.read.set_path(side, side == ReadSide::Pe ? r.hit : hit_from_de(side) ? 0 : pe_hit,
                  side == ReadSide::Pe ? r.hit_bytes : hit_from_de(side) ? 0.0 : layout.kv_bytes(pe_hit));
}

// The prompt KV that reaches the DE buffer for the handoff: all of it, or none when its decode engine holds the hit
// and takes the new KV straight into HBM (pe-pull-from-de; vLLM's NIXL moves KV GPU to GPU). Such a request needs
// no DE buffer room: it holds decode HBM from its placement, and one that waited for buffer room while holding it
// could hold up the handoffs that hold that room.
inline double de_buffer_bytes(const Request& r) { return r.read.side() == ReadSide::DeHbm ? 0.0 : r.prompt_bytes; }

}  // namespace dualpath
