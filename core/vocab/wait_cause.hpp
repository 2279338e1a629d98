// The causes a request's time is charged to (core/metrics/wait_report.hpp adds them up). Kept apart so that
// Request can carry its current cause without pulling in the report's JSON.
#pragma once

#include <cstdint>

namespace dualpath {

enum class WaitCause : uint8_t {
  // until the first token (TTFT)
  Fetch,          // placed in no engine yet: waiting for a group leader's next fetch (fetch cadence)
  PeAdmission,    // a fetch saw it but no PE could take it (every PE over beta: prefill load)
  DeHbm,          // PE known, no decode engine with HBM room for it (decode capacity)
  // In a node's storage read queue: charged to ReadQueue while every read slot of the SNIC is busy, else to what
  // holds the queue's head (WriteWait, PeBuffer, DeBuffer), since FIFO order keeps everyone behind it waiting.
  ReadQueue,      // the SNIC's read slots are all busy (storage backlog)
  WriteWait,      // the head's agent still has blocks being written (a read never sees unwritten blocks)
  PeBuffer,       // the head waits for PE DRAM buffer room
  DeBuffer,       // DE DRAM buffer room: the queue's head waits for it, or (streamed) a ready request to join a forward
  Read,           // its storage read is in flight (SNIC transfer; with a DRAM pool, a read with a storage part)
  PoolRead,       // its read is served by the DRAM pool alone (policy dram-pool: holding nodes' DRAM over CNICs)
  PeQueue,        // hit KV in DRAM, waiting for its PE group's next forward (PE compute busy)
  KvLoad,         // in a forward whose pipeline waits for Layer Block loads (CNIC / PCIe / DRAM)
  PrefillCompute, // in a forward that is computing
  EpAllToAll,     // in a forward whose stage compute is done but its EP all-to-all is not (CNIC model traffic)
  // after the first token
  KvTail,         // first token out, the last stages' KV still streaming to the DE buffer
  HandoffHbm,     // prompt KV in the DE buffer, waiting for the engine's HBM (policy.de_hbm = "handoff")
  Handoff,        // H2D into DE HBM and persistence of the prompt's new blocks
  DecodeJoin,     // handed off, waiting for the decode chunk in flight to end
  Decode,         // decoding
  Count
};
constexpr int kWaitCauses = static_cast<int>(WaitCause::Count);
constexpr int kTtftCauses = static_cast<int>(WaitCause::KvTail);  // causes before the first token

const char* wait_cause_name(WaitCause c);
// The resource class a cause is charged to ("snic", "dram_buffer_pe", "pe_compute", ...).
const char* wait_cause_resource(WaitCause c);

}  // namespace dualpath
