// KV I/O through the backend (kv_io.hpp), for every policy but the oracle: stage loads into HBM (PE path 3-4 by CNIC loopback, DE path 3-5 over the compute
// network), stage sends to the DE buffer (PE path 5-7, DE path miss-KV return), the handoff's H2D and prompt
// persistence (PE path 8-9, DE path 6-7), and the claims of blocks that decoding fills.
#include <map>
#include <memory>

#include "core/cluster/kv_io.hpp"
#include "core/cluster/read_path.hpp"
#include "core/mutation/mutant.hpp"

namespace dualpath {

// One transfer per (engine, source buffer): the engine's requests' stage KV from the PE buffer (its own CNIC's
// loopback) or from a DE buffer (that node's CNIC facing the engine, BufferPorts::port).
int StorageKvIo::load_stage(PrefillForward& f, int stage, ForwardIoListener& to) {
  const auto& engines = layout_.pe_units[f.group];
  int count = 0;
  for (size_t i = 0; i < engines.size(); ++i) {
    std::map<int, double> by_source;  // source GPU (whose CNIC reads the buffer) -> bytes; ordered: deterministic
    std::map<int, double> from_hbm;   // decode GPU whose HBM holds a resident hit (pe-pull-from-de) -> bytes
    for (const auto& e : f.batch[i]) {
      const Request& r = requests_[e.request];
      const int layers = e.layers_moved(f.layers, stage, layout_.n_layers, true);
      const double bytes = layout_.kv_bytes_layers(e.cached, layers);
      if (bytes <= 0 || r.lost) continue;  // a lost attempt's KV went with its node
      if (e.cached == r.hit && r.prefill.computed() == e.fresh) totals_.hit_loaded_to_pe += bytes;  // first chunk
      if (r.read.side() == ReadSide::DeHbm) {  // the decode engine's HBM holds the hit and earlier chunks' KV
        from_hbm[r.de] += bytes;
        continue;
      }
      // GPUDirect Storage: the PE half of the hit was read straight into this GPU's HBM; nothing moves for it.
      const double in_hbm = r.read.pe_hbm_bytes() > 0 ? layout_.kv_bytes_layers(r.read.pe_hit(), layers) : 0.0;
      if (r.read.side() != ReadSide::Split) {
        if (bytes > in_hbm) by_source[r.read.side() == ReadSide::De ? ports_.port(r.de, engines[i]) : r.pe] += bytes - in_hbm;
        continue;
      }
      // A split read: the PE half from the PE buffer, the DE half (and earlier chunks' KV, sent to the DE
      // buffer) over the compute network; the stage computes when both are in HBM (loads_pending counts both).
      const double local = layout_.kv_bytes_layers(r.read.pe_hit(), layers);
      if (local > in_hbm) by_source[r.pe] += local - in_hbm;
      if (bytes > local) by_source[ports_.port(r.de, engines[i])] += bytes - local;
    }
    for (const auto& [src, bytes] : by_source) {
      const bool local = src == engines[i];
      (local ? totals_.h2d : totals_.de_to_pe) += bytes;
      ++count;
      move_stage_kv(f, stage, true, local ? Hop::H2D : Hop::RemoteDramToHbm, {Loc::Dram, src}, {Loc::Hbm, engines[i]},
                    bytes, to);
    }
    for (const auto& [src, bytes] : from_hbm) {  // GPU to GPU, on the low-priority KV lane like every KV move
      totals_.de_hbm_to_pe += bytes;
      ++count;
      move_stage_kv(f, stage, true, Hop::RemoteHbmToHbm, {Loc::Hbm, src}, {Loc::Hbm, engines[i]}, bytes, to);
    }
  }
  return count;
}

// One transfer of a forward stage's KV, reported to the activity observer and, when it ends, to `to` as a load (into
// the PE's HBM) or a send (out of it).
void StorageKvIo::move_stage_kv(PrefillForward& f, int stage, bool load, Hop hop, Place src, Place dst, double bytes,
                                ForwardIoListener& to) {
  PrefillForward* fp = &f;
  const int rec = obs_->transfer_started({f.log_forward, stage, load, src.gpu, dst.gpu, bytes, be_.now(), -1});
  be_.transfer(hop, src, dst, bytes, TrafficClass::Kv, [this, fp, stage, rec, load, listener = &to] {
    obs_->transfer_ended(rec, be_.now());
    if (load) listener->load_ended(*fp, stage);
    else listener->send_ended(*fp, stage);
  });
}

// One transfer per (PE engine, DE buffer port): the stage's KV of the engine's requests bound for that DE node.
int StorageKvIo::send_stage(PrefillForward& f, int stage, ForwardIoListener& to) {
  const auto& engines = layout_.pe_units[f.group];
  int count = 0;
  for (size_t i = 0; i < engines.size(); ++i) {
    std::map<int, double> by_dest;
    std::map<int, double> to_hbm;  // decode GPU -> bytes written straight into its HBM (pe-pull-from-de)
    for (const auto& e : f.batch[i]) {
      const Request& r = requests_[e.request];
      if (r.lost) continue;  // a lost attempt's decode node is gone
      const double bytes =
          layout_.kv_bytes_layers(e.send_tokens, e.layers_moved(f.layers, stage, layout_.n_layers, false));
      // pe-pull-from-de: the new KV goes GPU to GPU into the HBM its decode engine holds for it (vLLM's NIXL)
      if (r.read.side() == ReadSide::DeHbm) to_hbm[r.de] += bytes;
      else by_dest[ports_.port(r.de, engines[i])] += bytes;
    }
    for (const auto& [dests, hbm] : {std::pair{&to_hbm, true}, std::pair{&by_dest, false}})
      for (const auto& [de, bytes] : *dests) {
        if (bytes <= 0) continue;
        totals_.pe_to_de += bytes;
        ++count;
        move_stage_kv(f, stage, false, hbm ? Hop::RemoteHbmToHbm : Hop::HbmToRemoteDram, {Loc::Hbm, engines[i]},
                      {hbm ? Loc::Hbm : Loc::Dram, de}, bytes, to);
      }
  }
  return count;
}

void StorageKvIo::prompt_computed(Request& r) { blocks_.write_started(r.agent); }

void StorageKvIo::prompt_abandoned(Request& r) {
  if (r.t.first_token >= 0 && r.t.handoff_end < 0) blocks_.write_finished(r.agent);
}

void StorageKvIo::hand_off(Request& r, Done done) {
  const int node = layout_.node_of(r.de);
  // The prompt's Full Blocks past the hit that are not in storage yet: claim() skips blocks already stored (the
  // block a block-aligned prompt recomputes, since one token must be computed) and blocks other agents share and
  // have written or are writing.
  const int64_t bt = blocks_.block_tokens();
  BlockRanges blocks = blocks_.claim(r.agent, r.hit / bt, blocks_.aligned(r.prompt) / bt);
  const double new_blocks = layout_.kv_bytes(BlockIndex::block_count(blocks) * bt);
  const bool decodes = r.gen > 1 && de_buffer_bytes(r) > 0;  // (pe-pull-from-de: the KV is in decode HBM already)
  auto part = std::make_shared<int>((decodes ? 1 : 0) + (new_blocks > 0 ? 1 : 0));
  auto one_done = [part, done] {
    if (--*part == 0) done();
  };
  if (*part == 0) {
    done();
    return;
  }
  if (decodes) {
    totals_.h2d += r.prompt_bytes;
    be_.transfer(Hop::H2D, Place{Loc::Dram, r.de}, Place{Loc::Hbm, r.de}, r.prompt_bytes, TrafficClass::Kv,
                   one_done);
  }
  if (new_blocks > 0) {
    totals_.storage_write += new_blocks;
    const int64_t write = writer_.track(node, blocks, {}, new_blocks);
    auto persist = [this, node, write, blocks, new_blocks, one_done] {
      sources_.write_through(node, blocks);  // beside the storage write
      writer_.persist(node, write, blocks, new_blocks, [this, blocks, one_done] {
        blocks_.persist(blocks);
        one_done();
      });
    };
    if (de_buffer_bytes(r) > 0) {
      persist();
    } else {  // pe-pull-from-de: the new blocks are in decode HBM only; they reach DRAM for the write first (D2H)
      totals_.d2h += new_blocks;
      be_.transfer(Hop::D2H, Place{Loc::Hbm, r.de}, Place{Loc::Dram, r.de}, new_blocks, TrafficClass::Kv,
                   std::move(persist));
    }
  }
}

void StorageKvIo::handoff_finished(Request& r) {
  blocks_.write_finished(r.agent);
  accounts_.release_buffer(r, layout_.node_of(r.de), r.buffer_bytes[ReadSide::De]);
}

BlockRanges StorageKvIo::claim_filled(Request& r, int64_t upto) {
  if (upto <= r.decode.persisted_upto() || mutant("no_decode_persist")) return {};
  const int64_t bt = blocks_.block_tokens();
  BlockRanges blocks = blocks_.claim(r.agent, r.decode.persisted_upto() / bt, upto / bt);
  if (!blocks.empty()) blocks_.write_started(r.agent);  // blocks shared with another agent may be stored already
  return blocks;
}

}  // namespace dualpath
