// The oracle's KV I/O (kv_io.hpp): no KV moves. Every round's context counts as persisted, so its prompt is all hit
// but the last token; the hit is "loaded" at once and the handoff ends as it starts.
#include "core/cluster/kv_io.hpp"

#include "core/cluster/decode_groups.hpp"
#include "core/cluster/prefill_pipeline.hpp"

namespace dualpath {

void FreeKvIo::round_issued(int agent, int64_t context) { blocks_.mark_persisted(agent, context); }

void FreeKvIo::load_hit(Request& r) {
  r.t.read_start = r.t.read_end = be_.now();
  prefill_.ready(r);
}

void FreeKvIo::hand_off(Request& r) { decode_.handoff_done(r); }

}  // namespace dualpath
