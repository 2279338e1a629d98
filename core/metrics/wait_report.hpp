// "What binds": every instant of every request's life is attributed to exactly one cause (the state the request is
// in and what it waits for), so the shares add to 100%. Causes map to the resource classes a planner can buy or
// tune (storage NICs, DRAM buffers, PE compute, DE HBM, ...). Totals are kept per cause and per time bin (the
// cause's mean number of requests over the bin), so the binding resource can be read per phase of a run.
// Per request only the current cause and since-when are stored (Request::wait_cause, wait_since).
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/vocab/request.hpp"  // ReadSide, PerSide
#include "core/vocab/wait_cause.hpp"

namespace dualpath {

// Time-weighted use of the resources the causes point at, as fractions of capacity over the run.
struct ResourceUse {
  double pe_buffer_mean = 0, pe_buffer_peak = 0;  // PE nodes' DRAM buffers (mean over nodes; peak: max node)
  double de_buffer_mean = 0, de_buffer_peak = 0;  // DE nodes' DRAM buffers
  double de_hbm_mean = 0;                         // decode engines' KV HBM reserved
  double pe_compute_busy = 0;                     // share of time PE units run a forward
  double pe_compute_share = 0;                    // share of the forwards' time spent computing (not on loads)
  double pe_lockstep_efficiency = 0;              // forward compute with attention balanced / as run (<= 1)
  double de_compute_busy = 0;                     // share of time DE units run decode steps
  // Modelled decode step time summed over every chunk, by part (CostModel::decode_layer): attention, replicated
  // weights, routed experts, EP dispatch + combine, and the overlap taken off. Seconds of group time.
  double decode_attention = 0, decode_dense = 0, decode_experts = 0, decode_kernels = 0, decode_ep = 0, decode_hidden = 0,
         decode_fitted = 0;
  // The DRAM pool (policy dram-pool; `pool` false without one): occupancy as a share of its capacity (mean over
  // nodes and time; peak: the fullest node), the share of hit KV bytes it served (the rest came from storage),
  // and the bytes it evicted.
  bool pool = false;
  double pool_mean = 0, pool_peak = 0, pool_hit_share = 0, pool_evicted_bytes = 0;
};

class WaitTracker {
 public:
  // At most this many time bins (38 MB; 72 simulated hours at 1 s): past it, neighbouring bins merge and the bin
  // doubles, so memory stays bounded whatever the run's length (a 9e8 s think time once allocated 1e9 bins).
  static constexpr size_t kMaxBins = size_t{1} << 18;

  explicit WaitTracker(double bin_seconds = 1.0) : bin_(bin_seconds > 0 ? bin_seconds : 1.0) {}

  // Charges [since, now) to `cause`, for `requests` requests at once (a whole queue).
  void charge(WaitCause cause, double since, double now, double requests = 1);

  // DRAM buffer bytes held by requests, by the cause the holder waits for, on PE nodes and on DE nodes, so
  // the report can say what fills the buffers (e.g. reads ahead of a busy PE) when requests wait for room.
  void hold(ReadSide side, WaitCause holder, double bytes, double now);
  // A holder of `bytes` on `side` moved from one cause to another at `now`.
  void move_holder(ReadSide side, WaitCause from, WaitCause to, double bytes, double now);
  // Byte-seconds of buffer held by holders in cause `c` on `side`, up to the last hold or move.
  double held(ReadSide side, WaitCause c) const {
    return held_seconds_[side_index(side)][static_cast<size_t>(c)];
  }

  double total(WaitCause c) const { return totals_[static_cast<size_t>(c)]; }
  double bin_seconds() const { return bin_; }
  size_t bins() const { return bins_.size(); }
  // Request-seconds charged to `c` within bin `b` (divide by bin_seconds() for the mean number of requests).
  double in_bin(size_t b, WaitCause c) const { return bins_[b][static_cast<size_t>(c)]; }

  // summary.json "waits": TTFT shares and whole-round shares by cause and by resource, the binding resource, and
  // the same per phase (`phases` equal slices of [0, end)).
  nlohmann::json to_json(double end, const ResourceUse& use, int phases = 10) const;
  // The resource with the largest share of TTFT, with its share (e.g. "snic 54%"), for run's table.
  std::string binding_line() const;
  // waits.csv: per bin, the mean number of requests in each cause.
  void write_csv(std::ostream& out) const;

 private:
  double bin_;
  std::array<double, kWaitCauses> totals_{};
  std::vector<std::array<double, kWaitCauses>> bins_;
  void advance_holders(double now);
  void coarsen();  // merges bins pairwise and doubles the bin
  std::array<std::array<double, kWaitCauses>, 2> held_bytes_{}, held_seconds_{};
  double held_since_ = 0;
};

}  // namespace dualpath
