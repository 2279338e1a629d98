#include "sim/link_meter.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace dualpath::sim {

namespace {
int class_index(TrafficClass c) { return c == TrafficClass::Model ? 0 : 1; }
}  // namespace

LinkMeter::LinkMeter(std::vector<double> bandwidth, double interval)
    : bandwidth_(std::move(bandwidth)),
      interval_(interval),
      step_rate_(bandwidth_.size(), PerClass{0, 0}),
      bucket_(bandwidth_.size(), PerClass{0, 0}),
      total_(bandwidth_.size(), PerClass{0, 0}) {
  if (!(interval_ > 0) || !std::isfinite(interval_))
    throw std::invalid_argument("link sample interval must be a positive number of seconds");
}

void LinkMeter::add_rate(int link, TrafficClass cls, double rate) {
  if (rate <= 0) return;
  PerClass& r = step_rate_[static_cast<size_t>(link)];
  if (r[0] == 0 && r[1] == 0) step_links_.push_back(link);
  r[static_cast<size_t>(class_index(cls))] += rate;
}

void LinkMeter::add_to_bucket(double dt) {
  if (dt <= 0) return;
  for (int link : step_links_) {
    const PerClass& r = step_rate_[static_cast<size_t>(link)];
    PerClass& b = bucket_[static_cast<size_t>(link)];
    if (b[0] == 0 && b[1] == 0) bucket_links_.push_back(link);
    PerClass& tot = total_[static_cast<size_t>(link)];
    for (size_t c = 0; c < 2; ++c) {
      b[c] += r[c] * dt;
      tot[c] += r[c] * dt;
    }
  }
}

void LinkMeter::close_step(double t0, double t1) {
  double t = t0;
  while (true) {
    const double boundary = static_cast<double>(interval_index_ + 1) * interval_;
    if (t1 < boundary) {
      add_to_bucket(t1 - t);
      break;
    }
    add_to_bucket(boundary - t);
    emit_interval(static_cast<double>(interval_index_) * interval_, boundary);
    ++interval_index_;
    t = boundary;
    // Nothing flowing: jump over idle intervals instead of walking them one by one.
    if (step_links_.empty()) interval_index_ = std::max(interval_index_, static_cast<long long>(t1 / interval_));
  }
  for (int link : step_links_) step_rate_[static_cast<size_t>(link)] = PerClass{0, 0};
  step_links_.clear();
}

void LinkMeter::integrate(int link, double to) {
  Held& h = held_[static_cast<size_t>(link)];
  const double dt = to - h.since;
  h.since = to;
  if (dt <= 0) return;
  PerClass& b = bucket_[static_cast<size_t>(link)];
  if (b[0] == 0 && b[1] == 0 && (h.rate[0] > 0 || h.rate[1] > 0)) bucket_links_.push_back(link);
  PerClass& tot = total_[static_cast<size_t>(link)];
  for (size_t c = 0; c < 2; ++c) {
    b[c] += h.rate[c] * dt;
    tot[c] += h.rate[c] * dt;
  }
}

void LinkMeter::advance_to(double now) {
  while (true) {
    const double boundary = static_cast<double>(interval_index_ + 1) * interval_;
    if (now < boundary) break;
    for (int link : active_) integrate(link, boundary);
    emit_interval(static_cast<double>(interval_index_) * interval_, boundary);
    ++interval_index_;
    // Nothing flowing: jump over idle intervals instead of walking them one by one.
    if (active_.empty()) interval_index_ = std::max(interval_index_, static_cast<long long>(now / interval_));
  }
  clock_ = now;
}

void LinkMeter::change_rate(int link, TrafficClass cls, double delta, int flows) {
  if (held_.empty()) held_.resize(bandwidth_.size());
  Held& h = held_[static_cast<size_t>(link)];
  if (h.active >= 0) {
    integrate(link, clock_);
  } else {
    h.since = clock_;
  }
  const auto c = static_cast<size_t>(class_index(cls));
  h.flows[c] += flows;
  h.rate[c] = h.flows[c] == 0 ? 0.0 : h.rate[c] + delta;
  const bool busy = h.flows[0] + h.flows[1] > 0;
  if (busy && h.active < 0) {
    h.active = static_cast<int>(active_.size());
    active_.push_back(link);
  } else if (!busy && h.active >= 0) {
    const int last = active_.back();
    active_[static_cast<size_t>(h.active)] = last;
    held_[static_cast<size_t>(last)].active = h.active;
    active_.pop_back();
    h.active = -1;
  }
}

void LinkMeter::emit_interval(double start, double end) {
  if (bucket_links_.empty()) return;
  std::sort(bucket_links_.begin(), bucket_links_.end());
  const double duration = end - start;
  for (int link : bucket_links_) {
    PerClass& b = bucket_[static_cast<size_t>(link)];
    if (duration > 0) {
      const double capacity = bandwidth_[static_cast<size_t>(link)] * duration;
      const LinkSample s{start, duration, link, b[0] / capacity, b[1] / capacity};
      if (sink_) sink_(s);
      else samples_.push_back(s);
    }
    b = PerClass{0, 0};
  }
  bucket_links_.clear();
}

void LinkMeter::finish(double end_time, LinkReport& report) {
  if (!held_.empty()) {
    advance_to(end_time);
    for (int link : active_) integrate(link, end_time);
  }
  emit_interval(static_cast<double>(interval_index_) * interval_, end_time);
  report.interval = interval_;
  report.end_time = end_time;
  for (size_t i = 0; i < report.links.size() && i < total_.size(); ++i) {
    LinkInfo& l = report.links[i];
    l.bytes_model = total_[i][0];
    l.bytes_kv = total_[i][1];
    l.mean_utilisation = end_time > 0 ? l.bytes() / (l.bandwidth * end_time) : 0.0;
  }
  report.samples = std::move(samples_);
  samples_.clear();
}

}  // namespace dualpath::sim
