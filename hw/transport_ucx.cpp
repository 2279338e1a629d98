// UCX UCP RMA transport. One UCP context per traffic class (KV, model).
//
// Single-process mode: two workers in this process; the initiator issues ucp_put_nbx/ucp_get_nbx through an
// endpoint to the target worker, whose registered regions it reaches by unpacked remote keys.
// Multi-process (peer) mode: one worker per process and one endpoint per process (itself included); each process
// exports its worker address and its regions' addresses and packed remote keys, and after connect_peers() region
// ids are global (the concatenation of every process's regions in rank order).
//
// Over tcp and shared memory UCX emulates RMA with active messages, so the target worker must be progressed too:
// one progress thread progresses the workers. In single-process mode it sleeps when no operation is in flight; in
// peer mode a remote process may be reading this one's memory at any time, so it keeps progressing, backing off to
// short sleeps when idle. The workers are used only from that thread (UCS_THREAD_MODE_SINGLE), except during
// construction and connect_peers(), before the thread touches them.
#include <ucp/api/ucp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hw/transport.hpp"

namespace dualpath::hw {

namespace {

void check(ucs_status_t st, const char* what) {
  if (st != UCS_OK) throw std::runtime_error(std::string(what) + ": " + ucs_status_string(st));
}

class UcxTransport final : public Transport {
 public:
  explicit UcxTransport(const TransportOptions& o) : label_(o.label), peer_(o.peer_mode) {
    if (!std::getenv("UCX_TLS") && o.tls.find("tcp") != std::string::npos) {
      // 64 KiB segments are 2-3x faster than the default 8 KiB on loopback. UCX 1.13 ignores transport-level
      // keys given to ucp_config_modify ("invalid configurations" warning), so these go through the
      // environment (read by ucp_config_read below), without overriding what the user set.
      ::setenv("UCX_TCP_TX_SEG_SIZE", "64k", 0);
      ::setenv("UCX_TCP_RX_SEG_SIZE", "64k", 0);
    }
    ucp_config_t* cfg = nullptr;
    check(ucp_config_read(nullptr, nullptr, &cfg), "ucp_config_read");
    struct Release {
      ucp_config_t* c;
      ~Release() { ucp_config_release(c); }
    } release{cfg};
    // The environment (UCX_TLS=...) wins; otherwise the requested transports, with loopback-friendly TCP settings.
    tls_ = std::getenv("UCX_TLS") ? std::getenv("UCX_TLS") : o.tls;
    if (!std::getenv("UCX_TLS") && !o.tls.empty()) {
      check(ucp_config_modify(cfg, "TLS", o.tls.c_str()), "UCX_TLS");
      if (o.tls.find("tcp") != std::string::npos) {
        if (!std::getenv("UCX_NET_DEVICES")) check(ucp_config_modify(cfg, "NET_DEVICES", "lo"), "UCX_NET_DEVICES");
      }
    }
    // On an InfiniBand/RoCE fabric the KV context and the model context get different service levels here
    // (UCX_IB_SL), so switches can give model traffic priority over KV traffic (paper §5, CNIC QoS). The loopback
    // transports used on machines without an HCA have no service levels, so this is only set when asked.
    // NOT verified on an HCA: UCX 1.13 ignored transport-level keys passed this way for TCP (see above); on a
    // fabric, check UCX's log for an "invalid configurations" warning, and if so run KV and model traffic from
    // processes started with different UCX_IB_SL values.
    if (o.service_level >= 0) check(ucp_config_modify(cfg, "IB_SL", std::to_string(o.service_level).c_str()), "UCX_IB_SL");

    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
    params.features = UCP_FEATURE_RMA;
    name_ = "dualpath-" + o.label;
    params.name = name_.c_str();
    check(ucp_init(&params, cfg, &ctx_), "ucp_init");
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    try {
      check(ucp_worker_create(ctx_, &wp, &initiator_), "ucp_worker_create");
      if (!peer_) {
        check(ucp_worker_create(ctx_, &wp, &target_), "ucp_worker_create");
        ucp_address_t* addr = nullptr;
        size_t addr_len = 0;
        check(ucp_worker_get_address(target_, &addr, &addr_len), "ucp_worker_get_address");
        ucp_ep_params_t ep{};
        ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
        ep.address = addr;
        ucp_ep_h h = nullptr;
        const ucs_status_t st = ucp_ep_create(initiator_, &ep, &h);
        ucp_worker_release_address(target_, addr);
        check(st, "ucp_ep_create");
        eps_.push_back(h);
        // Prove the path works before anyone relies on it: a 64-byte put and get through the endpoint.
        self_test();
      }
    } catch (...) {
      teardown();
      throw;
    }
    if (!peer_) worker_ = std::thread([this] { loop(); });
  }

  ~UcxTransport() override {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    if (worker_.joinable()) worker_.join();
    teardown();
  }

  std::string name() const override { return "ucx (" + label_ + " context, tls=" + (tls_.empty() ? "default" : tls_) + ")"; }

  int register_region(void* base, size_t len) override {
    {
      std::lock_guard lk(mu_);
      if (started_) throw std::logic_error("ucx transport: register every region before the first transfer");
    }
    Region r{static_cast<char*>(base), len, nullptr, nullptr, 0, true, {}};
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = base;
    mp.length = len;
    check(ucp_mem_map(ctx_, &mp, &r.memh), "ucp_mem_map");
    void* packed = nullptr;
    size_t packed_len = 0;
    check(ucp_rkey_pack(ctx_, r.memh, &packed, &packed_len), "ucp_rkey_pack");
    ucs_status_t st = UCS_OK;
    if (peer_) r.packed.assign(static_cast<const char*>(packed), packed_len);  // travels to the peers
    else st = ucp_ep_rkey_unpack(eps_[0], packed, &r.rkey);
    ucp_rkey_buffer_release(packed);
    check(st, "ucp_ep_rkey_unpack");
    std::lock_guard lk(mu_);
    regions_.push_back(std::move(r));
    return static_cast<int>(regions_.size()) - 1;
  }

  std::string export_peer() override {
    if (!peer_) throw std::logic_error("ucx transport: export_peer() needs peer mode");
    ucp_address_t* addr = nullptr;
    size_t addr_len = 0;
    check(ucp_worker_get_address(initiator_, &addr, &addr_len), "ucp_worker_get_address");
    std::string out;
    put_u64(out, addr_len);
    out.append(reinterpret_cast<const char*>(addr), addr_len);
    ucp_worker_release_address(initiator_, addr);
    std::lock_guard lk(mu_);
    put_u64(out, regions_.size());
    for (const auto& r : regions_) {
      put_u64(out, reinterpret_cast<uint64_t>(r.base));
      put_u64(out, r.len);
      put_u64(out, r.packed.size());
      out += r.packed;
    }
    return out;
  }

  void connect_peers(const std::vector<std::string>& exports, int self) override {
    if (!peer_) throw std::logic_error("ucx transport: connect_peers() needs peer mode");
    if (self < 0 || self >= static_cast<int>(exports.size())) throw std::out_of_range("ucx transport: self rank");
    std::lock_guard lk(mu_);
    if (!eps_.empty() || started_) throw std::logic_error("ucx transport: connect_peers() called twice or late");
    std::vector<Region> global;
    for (int p = 0; p < static_cast<int>(exports.size()); ++p) {
      const std::string& e = exports[p];
      size_t at = 0;
      const uint64_t addr_len = get_u64(e, at);
      if (at + addr_len > e.size()) throw std::runtime_error("ucx transport: truncated peer address");
      ucp_ep_params_t ep{};
      ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
      ep.address = reinterpret_cast<const ucp_address_t*>(e.data() + at);
      ucp_ep_h h = nullptr;
      check(ucp_ep_create(initiator_, &ep, &h), "ucp_ep_create (peer)");
      eps_.push_back(h);
      at += addr_len;
      const uint64_t n = get_u64(e, at);
      for (uint64_t i = 0; i < n; ++i) {
        Region r{};
        r.base = reinterpret_cast<char*>(get_u64(e, at));
        r.len = get_u64(e, at);
        const uint64_t klen = get_u64(e, at);
        if (at + klen > e.size()) throw std::runtime_error("ucx transport: truncated remote key");
        check(ucp_ep_rkey_unpack(h, e.data() + at, &r.rkey), "ucp_ep_rkey_unpack (peer)");
        at += klen;
        r.ep = p;
        r.local = p == self;
        if (r.local) {
          if (i >= regions_.size() || regions_[i].base != r.base) throw std::logic_error("ucx transport: self export");
          r.memh = regions_[i].memh;
        }
        global.push_back(std::move(r));
      }
    }
    regions_.swap(global);  // the local entries' memh moved into the global table (unmapped once, in teardown)
    for (auto& r : global) r.memh = nullptr;
    worker_ = std::thread([this] { loop(); });
  }

  void put(int src, size_t src_off, int dst, size_t dst_off, size_t len, Completion done) override {
    enqueue(Job{true, src, src_off, dst, dst_off, len, std::move(done)});
  }
  void get(int src, size_t src_off, int dst, size_t dst_off, size_t len, Completion done) override {
    enqueue(Job{false, src, src_off, dst, dst_off, len, std::move(done)});
  }

 private:
  struct Region {
    char* base;        // address in the owning process
    size_t len;
    ucp_mem_h memh;    // local regions only
    ucp_rkey_h rkey;   // unpacked through eps_[ep]
    int ep = 0;        // the endpoint that reaches the owner
    bool local = true; // owned by this process
    std::string packed;  // peer mode, before connect: the packed remote key
  };
  static void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  static uint64_t get_u64(const std::string& in, size_t& at) {
    if (at + sizeof(uint64_t) > in.size()) throw std::runtime_error("ucx transport: truncated peer export");
    uint64_t v;
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  struct Job {
    bool put;
    int src;
    size_t src_off;
    int dst;
    size_t dst_off;
    size_t len;
    Completion done;
  };
  struct Pending {  // one operation in flight (owned by the progress thread)
    UcxTransport* self;
    Job job;
    ucp_ep_h ep = nullptr;  // the endpoint the operation went through (a put is flushed on it)
    bool flushing = false;
  };

  void enqueue(Job j) {
    {
      std::lock_guard lk(mu_);
      started_ = true;
      jobs_.push_back(std::move(j));
    }
    cv_.notify_one();
  }

  static void on_done(void* request, ucs_status_t status, void* user) {
    auto* p = static_cast<Pending*>(user);
    if (request) ucp_request_free(request);
    p->self->step(p, status);
  }

  ucp_request_param_t param_for(Pending* p) {
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.send = &UcxTransport::on_done;
    rp.user_data = p;
    return rp;
  }

  // Handles a started or completed UCX request: NULL (done at once), an error, or in progress.
  void track(Pending* p, ucs_status_ptr_t r) {
    if (r == nullptr) step(p, UCS_OK);
    else if (UCS_PTR_IS_ERR(r)) step(p, UCS_PTR_STATUS(r));
    // else: on_done fires from progress
  }

  // Advances a job: a finished put is followed by a flush (remote completion); then the job completes.
  void step(Pending* p, ucs_status_t status) {
    if (status == UCS_OK && p->job.put && !p->flushing) {
      p->flushing = true;
      ucp_request_param_t rp = param_for(p);
      track(p, ucp_ep_flush_nbx(p->ep, &rp));
      return;
    }
    --inflight_;
    std::string err;
    if (status != UCS_OK) err = std::string("ucx ") + (p->job.put ? "put" : "get") + ": " + ucs_status_string(status);
    Completion done = std::move(p->job.done);
    delete p;
    done(err);
  }

  void issue(Job j) {
    std::string err;
    Region s{}, d{};
    {
      std::lock_guard lk(mu_);
      if (j.src < 0 || j.dst < 0 || j.src >= static_cast<int>(regions_.size()) ||
          j.dst >= static_cast<int>(regions_.size()))
        err = "ucx transport: unknown region";
      else
        s = regions_[j.src], d = regions_[j.dst];
    }
    if (err.empty() && (j.src_off + j.len > s.len || j.dst_off + j.len > d.len))
      err = "ucx transport: transfer out of the region's bounds";
    // One-sided: a put reads local memory, a get writes local memory.
    if (err.empty() && (j.put ? !s.local : !d.local))
      err = std::string("ucx transport: a ") + (j.put ? "put's source" : "get's destination") + " must be local";
    if (!err.empty()) {
      j.done(err);
      return;
    }
    ++inflight_;
    auto* p = new Pending{this, std::move(j)};
    ucp_request_param_t rp = param_for(p);
    const Job& job = p->job;
    if (job.put) {
      // Local source buffer, remote destination: address + rkey of the target region.
      p->ep = eps_[d.ep];
      track(p, ucp_put_nbx(p->ep, s.base + job.src_off, job.len, reinterpret_cast<uint64_t>(d.base + job.dst_off),
                           d.rkey, &rp));
    } else {
      p->ep = eps_[s.ep];
      track(p, ucp_get_nbx(p->ep, d.base + job.dst_off, job.len, reinterpret_cast<uint64_t>(s.base + job.src_off),
                           s.rkey, &rp));
    }
  }

  unsigned progress() {
    unsigned n = ucp_worker_progress(initiator_);
    if (target_) n += ucp_worker_progress(target_);
    return n;
  }

  void loop() {
    unsigned idle = 0;
    for (;;) {
      std::deque<Job> batch;
      {
        std::unique_lock lk(mu_);
        if (inflight_ == 0 && !peer_) cv_.wait(lk, [&] { return stop_ || !jobs_.empty(); });
        if (stop_ && jobs_.empty() && inflight_ == 0) return;
        batch.swap(jobs_);
      }
      for (auto& j : batch) issue(std::move(j));
      if (progress() > 0 || !batch.empty()) idle = 0;
      else if (++idle > 64) {
        // Two cores: let the storage and loop threads run. A peer-mode worker with nothing in flight may still be
        // the target of a peer's get, so it naps briefly instead of blocking.
        if (peer_ && inflight_ == 0 && idle > 4096) std::this_thread::sleep_for(std::chrono::microseconds(50));
        else std::this_thread::yield();
      }
    }
  }

  void progress_until(const bool& flag) {
    for (int i = 0; i < 10'000'000 && !flag; ++i) progress();
    if (!flag) throw std::runtime_error("ucx self-test timed out");
  }

  void self_test() {
    alignas(64) char a[64], b[64];
    for (int i = 0; i < 64; ++i) a[i] = static_cast<char>(i * 7 + 1), b[i] = 0;
    const int ra = register_region(a, sizeof a), rb = register_region(b, sizeof b);
    bool done = false;  // set by the completion, which runs inside ucp_worker_progress on this thread
    std::string err;
    auto* p = new Pending{this, Job{true, ra, 0, rb, 0, sizeof a, [&](const std::string& e) {
                                             err = e;
                                             done = true;
                                           }}};
    ++inflight_;
    ucp_request_param_t rp = param_for(p);
    p->ep = eps_[0];
    track(p, ucp_put_nbx(p->ep, a, sizeof a, reinterpret_cast<uint64_t>(b), regions_[rb].rkey, &rp));
    progress_until(done);
    if (!err.empty()) throw std::runtime_error("self-test: " + err);
    for (int i = 0; i < 64; ++i)
      if (b[i] != a[i]) throw std::runtime_error("self-test: put delivered wrong bytes");
    // Forget the test regions so ids start at 0 for the caller.
    for (auto& r : regions_) {
      ucp_rkey_destroy(r.rkey);
      ucp_mem_unmap(ctx_, r.memh);
    }
    regions_.clear();
  }

  void teardown() {
    for (auto& r : regions_) {
      if (r.rkey) ucp_rkey_destroy(r.rkey);
      if (r.memh) ucp_mem_unmap(ctx_, r.memh);
    }
    regions_.clear();
    for (ucp_ep_h ep : eps_) {
      ucp_request_param_t rp{};
      rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
      ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &rp);
      // Close errors are not fatal (a peer may be gone); progress until the request finishes.
      if (r && !UCS_PTR_IS_ERR(r)) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS) progress();
        ucp_request_free(r);
      }
    }
    eps_.clear();
    if (target_) ucp_worker_destroy(target_), target_ = nullptr;
    if (initiator_) ucp_worker_destroy(initiator_), initiator_ = nullptr;
    if (ctx_) ucp_cleanup(ctx_), ctx_ = nullptr;
  }

  std::string label_, name_, tls_;
  ucp_context_h ctx_ = nullptr;
  ucp_worker_h initiator_ = nullptr, target_ = nullptr;
  std::vector<ucp_ep_h> eps_;  // single-process: initiator -> target; peer mode: one per process, in rank order
  bool peer_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::vector<Region> regions_;
  int inflight_ = 0;  // progress thread only
  bool stop_ = false, started_ = false;
  std::thread worker_;
};

}  // namespace

std::unique_ptr<Transport> make_ucx_transport(const TransportOptions& options) {
  return std::make_unique<UcxTransport>(options);
}

}  // namespace dualpath::hw
