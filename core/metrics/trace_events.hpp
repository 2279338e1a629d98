// Chrome/Perfetto trace-event JSON of one run (https://ui.perfetto.dev, chrome://tracing), from plain data: the
// activity log, the request timelines and link utilisation samples. No backend types here, so the simulator and
// the hardware backend write the same trace.
//
// Layout (docs/visualisation.md):
//  - one process per node: a thread per prefill unit (forwards, with one child slice per stage's compute) and per
//    decode unit (decode chunks), lanes of handoff slices per decode unit, lanes of storage reads on the node's
//    SNIC ("snicN read #k"), lanes of KV transfers per GPU CNIC ("cnicG rd #k" leaving through it, "cnicG wr #k"
//    arriving), and counter tracks of SNIC, CNIC (KV and model traffic), PCIe and DRAM bandwidth in GB/s;
//  - a process "requests" with a thread per agent whose requests are traced: one slice per request with its
//    queue / allocate / read / prefill / handoff / decode phases;
//  - flow arrows (ph s/t/f, id = request id) from a traced request's arrival through its read on the SNIC, the
//    stage-0 KV load on the CNIC, each forward, the last stage's KV send, the handoff, to its first decode chunk.
// Large runs stay loadable: see TraceOptions.
#pragma once

#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <vector>

#include "core/vocab/link_kinds.hpp"
#include "core/vocab/request.hpp"
#include "core/metrics/activity_log.hpp"

namespace dualpath {

// One link with its utilisation samples (a backend's link report, converted).
struct TraceLink {
  std::string name;  // e.g. "snic0_down", "cnic3_rd", "pcie5_h2d", "dram1"
  LinkClass kind = LinkClass::Dram;  // core/vocab/link_kinds.hpp (storage links are skipped)
  int node = -1;     // compute node, -1 for storage servers
  int gpu = -1;      // global GPU index for per-GPU links
  double bandwidth = 0;  // bytes/s
};
struct TraceLinkSample {
  double time = 0, duration = 0;  // interval [time, time + duration), seconds
  int link = 0;                   // index into TraceInput::links
  double model_utilisation = 0, kv_utilisation = 0;
};

// A fault of the run (scenario "faults"): drawn as a slice on a "faults" track of its node, or of every node for
// one that hits the storage cluster (node -1).
struct TraceFault {
  std::string name;    // e.g. "snic-down", "snic-degrade x0.5"
  int node = -1;
  double start = 0;
  double end = -1;     // -1: to the end of the run
};

struct TraceInput {
  std::string title;  // e.g. "default · dualpath"
  int gpus_per_node = 8;
  int prefill_nodes = 1, decode_nodes = 1;
  std::vector<std::vector<int>> pe_units, de_units;  // GPUs of each lockstep unit, indexed like the log's `unit`
  const ActivityLog* log = nullptr;                  // required
  const RequestLog* requests = nullptr;     // required, indexed by request id
  std::vector<TraceLink> links;
  std::vector<TraceLinkSample> samples;  // ordered by time, then link; sparse (a missing row means idle)
  double sample_interval = 1.0;
  double end_time = 0;  // simulated time when the run ended
  std::vector<TraceFault> faults;
};

// Defaults keep a DS 660B 2P4D 2048-agent run well under 200 MB (about 80 MB; docs/visualisation.md has the
// arithmetic): slices cost ~130-180 bytes, counter points ~90.
struct TraceOptions {
  int64_t flow_requests = 200;   // requests followed by flow arrows and agent-track detail; -1: all
  // Budget of detail slices, shared by families in this order: stage slices, storage reads, decode chunks,
  // handoffs, KV transfers (two slices each). A family is shown in full while it fits in what is left; otherwise
  // only its slices that touch traced requests stay (stages are folded into one slice per forward, decode chunks
  // are merged k at a time, KV transfers are kept for the traced requests' forwards, or only those that carry a
  // traced request's KV when even that does not fit). Forwards, agent tracks and flows are always shown. -1: no
  // limit.
  int64_t detail_limit = 500000;
  // Counter points over all links: beyond this, consecutive sampling intervals are merged (exact time averages
  // over a coarser interval, a multiple of the sampling interval). -1: no limit.
  int64_t counter_limit = 300000;
};

struct TraceEventStats {
  int64_t events = 0;
  int64_t traced_requests = 0;
  int64_t forwards = 0, folded_forwards = 0, stage_slices = 0;
  int64_t transfers = 0, transfer_slices = 0;  // records, and slices written (two per transfer: rd and wr side)
  int64_t reads = 0, read_slices = 0;
  int64_t handoffs = 0, handoff_slices = 0;
  int64_t decode_chunks = 0, decode_slices = 0;
  int64_t counter_points = 0;
  int64_t flow_events = 0;
  double counter_interval = 0;  // seconds per counter point actually used
  uint64_t bytes = 0;
};

// Writes the whole trace. Throws std::invalid_argument when log or requests is missing.
TraceEventStats write_trace_events(std::ostream& out, const TraceInput& in, const TraceOptions& options = {});

// The trace file for one policy of a multi-policy run: "t.json" -> "t.dualpath.json", "t" -> "t.dualpath".
std::string trace_file_for_policy(const std::string& file, const std::string& policy);

}  // namespace dualpath
