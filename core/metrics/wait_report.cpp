#include "core/metrics/wait_report.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace dualpath {

namespace {
struct CauseInfo {
  const char* name;
  const char* resource;
};
constexpr std::array<CauseInfo, kWaitCauses> kCauses{{
    {"fetch", "scheduler_fetch"},
    {"pe_admission", "pe_compute"},
    {"de_hbm", "de_hbm"},
    {"read_queue", "snic"},
    {"write_wait", "storage_write"},
    {"pe_buffer", "dram_buffer_pe"},
    {"de_buffer", "dram_buffer_de"},
    {"read", "snic"},
    {"pool_read", "dram_pool"},
    {"pe_queue", "pe_compute"},
    {"kv_load", "kv_load_path"},
    {"prefill_compute", "pe_compute"},
    {"ep_all_to_all", "ep_all_to_all"},
    {"kv_tail", "kv_transfer"},
    {"handoff_hbm", "de_hbm"},
    {"handoff", "handoff"},
    {"decode_join", "de_compute"},
    {"decode", "de_compute"},
}};

// Shares of the causes in [first, last) of `v`, by cause and by resource; and the largest resource.
nlohmann::json shares(const std::array<double, kWaitCauses>& v, int first, int last, std::string* top = nullptr,
                      double* top_share = nullptr) {
  double sum = 0;
  for (int c = first; c < last; ++c) sum += v[static_cast<size_t>(c)];
  nlohmann::json by_cause = nlohmann::json::object(), by_resource = nlohmann::json::object();
  std::map<std::string, double> res;
  for (int c = first; c < last; ++c) {
    const double s = sum > 0 ? v[static_cast<size_t>(c)] / sum : 0.0;
    by_cause[kCauses[static_cast<size_t>(c)].name] = s;
    res[kCauses[static_cast<size_t>(c)].resource] += s;
  }
  std::string best;
  double best_s = -1;
  for (const auto& [r, s] : res) {
    by_resource[r] = s;
    if (s > best_s) best = r, best_s = s;  // map order: ties go to the first name, deterministic
  }
  if (top) *top = sum > 0 ? best : "none";
  if (top_share) *top_share = sum > 0 ? best_s : 0.0;
  return {{"request_seconds", sum}, {"by_cause", by_cause}, {"by_resource", by_resource},
          {"binds", sum > 0 ? best : "none"}};
}
}  // namespace

const char* wait_cause_name(WaitCause c) { return kCauses[static_cast<size_t>(c)].name; }
const char* wait_cause_resource(WaitCause c) { return kCauses[static_cast<size_t>(c)].resource; }

void WaitTracker::charge(WaitCause cause, double since, double now, double requests) {
  if (!(now > since) || requests <= 0) return;
  const size_t c = static_cast<size_t>(cause);
  totals_[c] += (now - since) * requests;
  // [since, now) ends in the bin holding now, or the one before when now is on a bin boundary.
  double last_bin = std::max(0.0, std::ceil(now / bin_) - 1);
  while (last_bin >= static_cast<double>(kMaxBins)) {  // rare: only past kMaxBins bins of simulated time
    coarsen();
    last_bin = std::max(0.0, std::ceil(now / bin_) - 1);
  }
  const size_t last = static_cast<size_t>(last_bin);
  if (bins_.size() <= last) bins_.resize(last + 1, std::array<double, kWaitCauses>{});
  for (size_t b = static_cast<size_t>(std::floor(since / bin_)); b <= last; ++b) {
    const double lo = std::max(since, static_cast<double>(b) * bin_);
    const double hi = std::min(now, static_cast<double>(b + 1) * bin_);
    if (hi > lo) bins_[b][c] += (hi - lo) * requests;
  }
}

void WaitTracker::coarsen() {
  const size_t n = (bins_.size() + 1) / 2;
  for (size_t b = 0; b < n; ++b) {
    std::array<double, kWaitCauses> merged = bins_[2 * b];
    if (2 * b + 1 < bins_.size())
      for (size_t c = 0; c < merged.size(); ++c) merged[c] += bins_[2 * b + 1][c];
    bins_[b] = merged;
  }
  bins_.resize(n);
  bin_ *= 2;
}

void WaitTracker::advance_holders(double now) {
  if (now <= held_since_) return;
  for (size_t s = 0; s < 2; ++s)
    for (size_t c = 0; c < kWaitCauses; ++c) held_seconds_[s][c] += held_bytes_[s][c] * (now - held_since_);
  held_since_ = now;
}

void WaitTracker::hold(ReadSide side, WaitCause holder, double bytes, double now) {
  advance_holders(now);
  auto& v = held_bytes_[side_index(side)][static_cast<size_t>(holder)];
  v = std::max(0.0, v + bytes);
}

void WaitTracker::move_holder(ReadSide side, WaitCause from, WaitCause to, double bytes, double now) {
  if (bytes <= 0 || from == to) return;
  hold(side, from, -bytes, now);
  hold(side, to, bytes, now);
}

nlohmann::json WaitTracker::to_json(double end, const ResourceUse& use, int phases) const {
  nlohmann::json out;
  out["utilisation"] = {{"pe_dram_buffer_mean", use.pe_buffer_mean}, {"pe_dram_buffer_peak", use.pe_buffer_peak},
                        {"de_dram_buffer_mean", use.de_buffer_mean}, {"de_dram_buffer_peak", use.de_buffer_peak},
                        {"de_hbm_mean", use.de_hbm_mean},          {"pe_compute_busy", use.pe_compute_busy},
                        {"pe_compute_share_of_forward", use.pe_compute_share},
                        {"pe_lockstep_efficiency", use.pe_lockstep_efficiency},
                        {"de_compute_busy", use.de_compute_busy}};
  if (use.pool)
    out["utilisation"]["dram_pool"] = {{"occupancy_mean", use.pool_mean},
                                       {"occupancy_peak", use.pool_peak},
                                       {"hit_share", use.pool_hit_share},
                                       {"evicted_bytes", use.pool_evicted_bytes}};
  // Where a decode step's modelled time goes, as shares of the steps' total (the parts add up to 1 with the
  // overlap taken off as a negative share).
  const double step = use.decode_attention + use.decode_dense + use.decode_experts + use.decode_kernels + use.decode_ep +
                      use.decode_fitted - use.decode_hidden;
  if (step > 0) {
    out["utilisation"]["decode_step_parts"] = {{"attention", use.decode_attention / step},
                                               {"dense_weights", use.decode_dense / step},
                                               {"routed_experts", use.decode_experts / step},
                                               {"kernel_overheads", use.decode_kernels / step},
                                               {"ep_all_to_all", use.decode_ep / step},
                                               {"overlap_hidden", -use.decode_hidden / step}};
    // A calibration's fitted fixed part (docs/calibration.md), named when a calibration sets one.
    if (use.decode_fitted > 0) out["utilisation"]["decode_step_parts"]["calibration_fixed"] = use.decode_fitted / step;
  }
  // What the buffers were held by: shares of each side's buffer byte-seconds by the holder's cause.
  for (ReadSide s : kNodeSides) {
    const size_t side = side_index(s);
    double sum = 0;
    for (size_t c = 0; c < kWaitCauses; ++c) sum += held_seconds_[side][c];
    nlohmann::json by = nlohmann::json::object();
    for (size_t c = 0; c < kWaitCauses; ++c)
      if (held_seconds_[side][c] > 0) by[kCauses[c].name] = held_seconds_[side][c] / sum;
    out["utilisation"][s == ReadSide::Pe ? "pe_dram_buffer_held_by" : "de_dram_buffer_held_by"] = by;
  }
  out["ttft"] = shares(totals_, 0, kTtftCauses);
  out["round"] = shares(totals_, 0, kWaitCauses);
  nlohmann::json per_phase = nlohmann::json::array();
  if (end > 0 && phases > 0) {
    const double len = end / phases;
    for (int p = 0; p < phases; ++p) {
      std::array<double, kWaitCauses> v{};
      for (size_t b = 0; b < bins_.size(); ++b) {
        const double mid = (static_cast<double>(b) + 0.5) * bin_;
        if (mid < p * len || mid >= (p + 1) * len) continue;
        for (size_t c = 0; c < v.size(); ++c) v[c] += bins_[b][c];
      }
      auto j = shares(v, 0, kTtftCauses);
      per_phase.push_back({{"start_s", p * len},
                           {"end_s", (p + 1) * len},
                           {"ttft_binds", j["binds"]},
                           {"ttft_by_resource", j["by_resource"]}});
    }
  }
  out["phases"] = per_phase;
  return out;
}

std::string WaitTracker::binding_line() const {
  std::string top;
  double s = 0;
  shares(totals_, 0, kTtftCauses, &top, &s);
  std::ostringstream o;
  o << top << ' ' << std::fixed << std::setprecision(0) << 100 * s << '%';
  return o.str();
}

void WaitTracker::write_csv(std::ostream& out) const {
  out << "time,duration";
  for (const auto& c : kCauses) out << ',' << c.name;
  out << '\n' << std::setprecision(6);
  for (size_t b = 0; b < bins_.size(); ++b) {
    out << static_cast<double>(b) * bin_ << ',' << bin_;
    for (double v : bins_[b]) out << ',' << v / bin_;
    out << '\n';
  }
}

}  // namespace dualpath
