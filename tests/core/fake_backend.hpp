// A deterministic Backend for core tests: a virtual clock and closed-form resources. Every resource (a node's
// SNIC per direction, a GPU's CNIC per direction, a GPU's compute) serves its work FIFO at a fixed rate, so
// times are sums of bytes/bandwidth that a test can write down. Contention between classes is not modelled
// (that is the simulator's job); FIFO service keeps aggregate throughput equal to the resource's bandwidth.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "core/backend/backend.hpp"

namespace dualpath::test {

struct FakeRates {
  double snic_bw = 50e9;
  double cnic_bw = 50e9;
  int gpus_per_node = 8;
};

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(FakeRates rates) : rates_(rates) {}

  struct Op {
    std::string kind;
    int a, b;
    double bytes = 0, start = 0, end = 0;
  };

  std::vector<BlockRanges> reads, writes;  // the blocks each storage call named, in call order
  std::map<int, std::set<int64_t>> persisted;  // per stream (an agent's own: its id), blocks whose write completed
  int64_t unpersisted_reads = 0;  // blocks read before their write completed (must stay 0)
  int64_t rewritten_blocks = 0;   // blocks written twice (must stay 0)
  // Fault injection: a non-empty error for (node, read call index) makes that read fail.
  std::function<std::string(int node, int call)> fail_read;

  double now() const override { return now_; }
  using Backend::storage_read;
  using Backend::storage_write;
  void storage_read(int node, const BlockRanges& blocks, double bytes, Done done, Failed failed) override {
    reads.push_back(blocks);
    if (fail_read && failed) {
      const std::string err = fail_read(node, static_cast<int>(reads.size()) - 1);
      if (!err.empty()) {  // the SNIC time is spent, then the read reports its failure
        serve("snic_rd" + std::to_string(node), bytes / rates_.snic_bw, {"read", node, -1, bytes, 0, 0},
              [failed, err] { failed(err); });
        return;
      }
    }
    for (const auto& r : blocks)
      for (int64_t b = r.first; b < r.last; ++b) unpersisted_reads += persisted[r.stream].count(b) ? 0 : 1;
    serve("snic_rd" + std::to_string(node), bytes / rates_.snic_bw, {"read", node, -1, bytes, 0, 0}, std::move(done));
  }
  // GPUDirect Storage: the node's SNIC read side, as any read (the tests count who reads what)
  std::vector<int> hbm_reads;  // the GPU of each read into HBM, in call order
  void storage_read_to_hbm(int gpu, const BlockRanges& blocks, double bytes, Done done, Failed failed) override {
    hbm_reads.push_back(gpu);
    storage_read(gpu / rates_.gpus_per_node, blocks, bytes, std::move(done), std::move(failed));
  }
  void storage_write(int node, const BlockRanges& blocks, double bytes, Done done, Failed) override {
    writes.push_back(blocks);
    serve("snic_wr" + std::to_string(node), bytes / rates_.snic_bw, {"write", node, -1, bytes, 0, 0},
          [this, blocks, done = std::move(done)] {
            for (const auto& r : blocks)
              for (int64_t b = r.first; b < r.last; ++b) rewritten_blocks += persisted[r.stream].insert(b).second ? 0 : 1;
            done();
          });
  }
  void transfer(Hop hop, Place src, Place dst, double bytes, TrafficClass, Done done) override {
    // The receiving GPU's CNIC write side is the resource (loopback copies use the same GPU's CNIC).
    const std::string res = "cnic_wr" + std::to_string(dst.gpu);
    serve(res, bytes / rates_.cnic_bw, {hop_name(hop), src.gpu, dst.gpu, bytes, 0, 0}, std::move(done));
  }
  void compute(int gpu, const ComputeWork& work, Done done) override {
    serve("gpu" + std::to_string(gpu), work.seconds, {"compute", gpu, -1, work.seconds, 0, 0}, std::move(done));
  }
  void timer(double delay, Done done) override { at(now_ + delay, std::move(done)); }
  bool can_stop() const override { return true; }
  void stop() override { stopped_ = true; }
  bool stopped() const { return stopped_; }

  // Runs until no event is left; returns the number of events processed.
  int64_t run() {
    int64_t n = 0;
    while (!events_.empty() && !stopped_) {
      Event e = events_.top();
      events_.pop();
      now_ = e.t;
      e.fn();
      ++n;
    }
    return n;
  }
  // Processes one event; false when none is left.
  bool step() {
    if (events_.empty() || stopped_) return false;
    Event e = events_.top();
    events_.pop();
    now_ = e.t;
    e.fn();
    return true;
  }
  const std::vector<Op>& ops() const { return ops_; }

 private:
  struct Event {
    double t;
    uint64_t seq;
    Done fn;
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  void at(double t, Done fn) { events_.push(Event{t, seq_++, std::move(fn)}); }
  void serve(const std::string& resource, double duration, Op op, Done done) {
    double& free_at = free_at_[resource];
    op.start = std::max(now_, free_at);
    op.end = op.start + duration;
    free_at = op.end;
    ops_.push_back(op);
    at(op.end, std::move(done));
  }

  FakeRates rates_;
  double now_ = 0;
  bool stopped_ = false;
  uint64_t seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::map<std::string, double> free_at_;
  std::vector<Op> ops_;
};

}  // namespace dualpath::test
