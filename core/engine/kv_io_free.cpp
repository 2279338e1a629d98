// The oracle's KV I/O (kv_io.hpp): no KV moves. Every round's context counts as persisted, so its prompt is all hit
// but the last token; the hit is "loaded" at once and the handoff ends as it starts.
#include "core/engine/kv_io.hpp"

#include "core/engine/decode_groups.hpp"
#include "core/engine/prefill_pipeline.hpp"

namespace dualpath {

void Cluster::FreeKvIo::round_issued(int agent, int64_t context) { c_.blocks_.mark_persisted(agent, context); }

void Cluster::FreeKvIo::load_hit(Request& r) {
  r.t.read_start = r.t.read_end = c_.be_.now();
  c_.prefill_->ready(r);
}

void Cluster::FreeKvIo::hand_off(Request& r) { c_.decode_->handoff_done(r); }

}  // namespace dualpath
